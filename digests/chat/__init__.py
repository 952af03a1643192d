"""Chat: the commands people type, decided once for every platform."""
