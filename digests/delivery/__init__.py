"""Delivery: when digests are due, what each channel receives, and sending it."""
