"""Build time: what the corpus's documents define and mention, gathered into the entries and
deprecations the table is written from (`documents`), page by page (`pages`, `document_scan`,
`table_definitions`, `code_names`, `deprecations`) and the mentions every page writes
(`mention_scan`)."""
