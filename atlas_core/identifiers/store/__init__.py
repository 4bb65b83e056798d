"""On disk: the formats of ``bundle_spec/SPEC.md``'s "identifiers/" (`table` writes it,
`table_reader` opens it) and "mentions/" (`mentions`), the checks of their records (`checks`)
and `atlas verify`'s walk over both (`verify`); `places` names where on a page a mention sits."""
