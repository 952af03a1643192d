"""Chat platform adapters. Each module translates one platform; none decides anything."""
