"""Run time: `IdentifierIndex` over an opened table (`identifier_index`: lookup, endpoint
completion), its parameter and property definitions (`field_definitions`) and workspace symbols
(`symbols`); the ranking of table rows beside pages of mentions (`ranking`); the operation and
parameter an API call in client code targets (`call_target`); one entry per subject
(`subjects`)."""
