"""Every address digestbot makes: the web pages' paths and periods, and links into the chats."""
