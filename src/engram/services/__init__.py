"""The operations, written once over the storage protocol and used by every adapter."""
