"""The Atlas language server (pygls + lsprotocol) over the engine in `atlas_core`."""
