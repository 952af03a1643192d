"""Reader feedback: votes on papers, what they hide, the model they train, their export."""
