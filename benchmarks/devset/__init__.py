"""Draw the identifier development set and the client snippets from the real corpus and specs.

    uv run python -m benchmarks.devset --shared ../shared --seed 13 \
        --out benchmarks/identifier_cases.jsonl --snippets-out benchmarks/client_snippets.jsonl

Nothing here is picked by hand and nothing asks Atlas where a name lives. At run time the package
reads `<shared>/collibra-docs/markdown/**/*.md` (front matter `title`, `partial`) and the OpenAPI
files `<shared>/collibra-openapi/dgc-rest.json` (Core API) and `dgc-importer-rest.json` (Import
API), lists the whole population of every class by the rules below, draws a fixed-seed sample and
writes identifiers, bundle-relative file names and short generated code only: no text of the docs
or specs is copied into the output. Same inputs and seed, byte-identical output.

Method
------
1. Population: each class's rule lists every member found in the corpus or the specs.
2. Sample: `random.Random(seed)` draws `PER_CLASS` (28) members per class, stratified: each
   stratum (printed in the summary) gets `min(MIN_PER_STRATUM, size)`, the rest of the quota is
   shared out in proportion to stratum size (largest remainder), each stratum is drawn uniformly
   from its members sorted by name. A class smaller than the quota is taken whole. Classes are
   drawn in the order of `CLASSES`, and a name an earlier class drew leaves the later pools, so
   one string never carries two answers.
3. Expected files: definition sites only, never mere mentions, by the class's rule below.
   `primary` is the best page by that rule and always `expected_files[0]`. At most `CAP` (8)
   files are kept: the primary, then up to 3 more written (markdown) pages, then the rule's own
   order, then pages that define the very same string under another class's rule (a query
   parameter that is also a schema property). `definitions` is the uncapped count and
   `ambiguous` is true when it exceeds the cap. `needs_spec` is true when no expected file is a
   markdown page (the case can only be answered by a bundle built with the specs).
4. Spelling: the identifier is written as code writes it, one spelling per case drawn with
   `random.Random(f"{seed}:{class}:{name}")` from the class's realistic spellings (below);
   `spelling` names it, `canonical` keeps the name as the corpus or spec writes it.

File names are the `file` of Atlas's hits. Markdown pages: the path under `markdown/`
(`rest-core/assets-api.md`). Spec pages, as `atlas_core/sources/openapi.py::load_openapi` names
them (recomputed here, not imported; see `spec_pages.py`): an operation is on
`<slug(spec file stem)>/<slug(its first tag)>.md`, with tags taken in the order of the spec's
`tags` list and then of first use (paths in file order; methods get, put, post, delete, options,
head, patch, trace), `-1`, `-2`, ... added to a repeated slug, `schemas` reserved; every schema is
on `<stem>/schemas.md`; `slug` is `openapi_pages.slug` (GitHub heading slug, `_` to `-`, runs of
`-` collapsed). If Atlas renames its spec pages, change `spec_pages.py`.

Terms. A "written page" is a markdown page. A name is at a "definition position" on a written
page when it is, as a whole token, in the title or a heading (weight 3; a plain lowercase word
like `tags` only when the heading is exactly that word), the first cell of a table row, the start
of a bullet followed by a separator or nothing (a bullet that is only a link is an index entry and
does not count), or, on pages flattened from HTML (`partial: true`), the start of a line followed
by a capitalised description or nothing (weight 1 each). "Code contexts" are fenced blocks, inline
code spans, table rows and every line of a flattened page.

path       Population: every operation (method + path) of both specs, and the REST paths that a
           written page calls in a code example (`curl [-X M] URL`, `conn.request("M", "/p")`)
           and no spec operation matches. Expected: the rest-core page whose own operations table
           lists `**METHOD** path` and which has a section for that client method; the `api/`
           reference page whose H1 is the tag and one H2 the summary; the spec page of the tag;
           written pages whose code example calls it. Primary: the first of these that exists.
           Spellings: the template, with the spec's `/rest/2.0` base, with `METHOD `, with both,
           or as a full URL; path parameters as `{name}`, a literal UUID (names ending in Id) or
           `<snake_name>`; Import API paths so with and without `/rest/2.0`; corpus-only paths
           as written, with the method, or as a full URL.
operation  Population: every operationId of both specs and every method of the generated Python
           client (`[**find_assets**](...) | **GET** /assets` rows of rest-core pages).
           Expected: for an operationId, the written `api/` page that embeds it verbatim, the
           spec page, the rest-core page of the same method+path, the `api/` reference page; for
           a client method, its rest-core page, then the spec and `api/` pages of the same
           method+path. Primary: the first. Spellings: `name`, `name()`, `receiver.name`
           (`assetsApi.findAssets`, `api_instance.find_assets`).
parameter  Population: every distinct name of a query, path or header parameter of both specs
           (wire names). Expected: the spec page that holds the most operations taking it (ties
           by file name; the primary), the rest-core pages whose section for such an operation
           lists it (in snake_case) in its Parameters table and the `api/` pages of such an
           operation that carry it verbatim (most operations first), then the other spec pages.
           Spellings: `name`, `"name"`, `name=value` (query), `{name}` (path).
property   Population: every distinct property name of the Core API's schemas (`allOf` parts
           included). Expected: `dgc-rest/schemas.md` (the primary), spec pages of operations
           whose inline request body lists it, rest-core-models pages whose Properties table
           lists it (in snake_case), those of a schema that defines it (title `S` or `SImpl`)
           first. Spellings: `name`, `"name"`.
json_key   Population: every `"key":` in the JSON of import-api pages, every identifier in the
           first cell of their tables, every property of the Import API's schemas. Expected: the
           import-api pages where it is at a definition position (most weight first, the
           primary), then `dgc-importer-rest/schemas.md` if an Import API schema defines it;
           if no written page defines it, the spec page (primary) and the import-api pages whose
           JSON uses it (most uses first, at most 4). Spellings: `key`, `"key"`.
constant   Population: SCREAMING_CASE names with an `_` (a `-P`/`-D` prefix stripped) in code
           contexts, except `YOUR_*` placeholders and sample names with an all-digit part
           (`TABLE_1`). Expected: the pages where it is at a definition position, by weight,
           then occurrences, then file name; if there are none, the pages where it occurs in
           code contexts, most first. Spellings: `NAME`, `"NAME"`; names assigned as
           `export NAME=`, `NAME=` or used as `$NAME` also `$NAME`, `os.environ["NAME"]`,
           `process.env.NAME`.
type       Population: the schema names of both specs, the titles of rest-core-models pages,
           `The X object` headings of `api/` model pages, `X bean` lines of workflows pages.
           Expected: the rest-core-models page titled X (its file is X in kebab-case), the `api/`
           model page, the workflows bean page, then the spec schemas page(s). Primary: the
           first. Spellings: `X`, `collibra_core.X` (with a model page), `X.builder()` (names
           ending in Request).
cli        Population: command lines in code contexts whose program is a product or build tool
           (`PROGRAMS`) or a path-like executable (`./x`, `bin/x`, `.\\x`, not a data file), cut
           after at most three following words or options (trailing options dropped; a bare
           program name is not a command), and lines of cli/ pages that are one hyphenated word
           (a flattened command table). Expected and primary: as for constant. Spellings: as
           written, after a `$ ` (or, for a Windows path, `> `) prompt.
near_tie   Population: code-shaped tokens (camelCase, PascalCase with two humps, snake_case,
           SCREAMING_CASE, dotted names of those) on at least three pages, of which exactly one
           has it at a definition position and the others only mention it. Strata: tokens no
           other class lists, and tokens another class also lists (mostly model types named in
           rest-core pages). Expected: the one page. Spellings: as written.

Client snippets (`--snippets-out`): code drawn from spec operations that take a query parameter
or a JSON body with properties. Always included: POST /workflowInstances (python-session), POST
/relations (python-dict-before), and a GET /domains lookup followed by
`requests.delete(BASE + "/domains/bulk", json=ids)`. The rest: HTTP methods in turn, for each a
random tag not yet used with that method, a random operation of it. Styles rotate through
`STYLES` in a freshly shuffled order each round (the client-class style only where the path has
a literal segment after the first). Query keys come from the operation's parameters, body keys
from the request schema (`$ref`s and `allOf` followed, an array body's item schema), required
ones first, 1 to 4 per call. Each cursor points at the middle of its text: the last literal path
segment or the builder method (`role` endpoint, `name` the operationId), a key (`query`,
`body`), or in the fetch styles the first path parameter (`path`). Python snippets must parse
(`ast`); the others must balance their brackets; every cursor must sit on its text.

Where each step lives
---------------------
pages.py, spec.py, written.py, corpus.py   reading: markdown pages and definition positions, the
                                           OpenAPI specs, the written reference structure and call
                                           examples, and the `Corpus` that holds them
spec_pages.py                              the spec page names
population/                                step 1 and the expected files: `endpoints` (path,
                                           operation), `fields` (parameter, property, json_key),
                                           `names` (constant, type, cli, near_tie); `spellings`
                                           is step 4
sampling.py, cases.py                      step 2, the cap of step 3, and the case records
snippets/                                  the client snippets
__main__.py                                the command line
"""
