"""Java and Groovy: generated-client builders, java.net.http request builders, Spring's
RestTemplate, and Groovy's URL connections."""

from __future__ import annotations

from atlas_core.engine import Engine
from atlas_core.recognize.calls.scan import scan_calls
from tests.recognize.cursor import line_with, read

JAVA = """\
package com.acme.sync;

import java.net.URI;
import java.net.http.HttpRequest;

public class GlossarySync {
    private static final String BASE = "https://acme.collibra.com/rest/2.0";
    private final AssetApi assetApi;

    public GlossarySync(AssetApi assetApi) {
        this.assetApi = assetApi;
    }

    /** Finds terms; see GET /assets in the REST docs. */
    public PagedResponse find(String name) {
        return assetApi.findAssets(FindAssetsRequest.builder()
                .name(name)
                .nameMatchMode(MatchMode.EXACT)
                .build());
    }

    public HttpRequest create(String json) {
        return HttpRequest.newBuilder()
                .uri(URI.create(BASE + "/assets"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
    }

    public String status(RestTemplate rest, String id) {
        return rest.getForObject(BASE + "/statuses/" + id, String.class);
    }
}
"""


def test_a_builder_method_inside_a_client_call() -> None:
    site = read(JAVA, "java", "nameMatchMode")
    assert site is not None
    assert (site.client, site.role, site.name, site.operation) == (
        "sdk",
        "builder",
        "nameMatchMode",
        "findAssets",
    )
    assert site.path_keys == ("name", "nameMatchMode")
    assert line_with(JAVA, ".nameMatchMode(")[site.start : site.end] == "nameMatchMode"
    operation = read(JAVA, "java", "findAssets")
    assert operation is not None
    assert (operation.role, operation.name, operation.method) == ("operation", "findAssets", "")


def test_a_java_net_http_request_builder() -> None:
    site = read(JAVA, "java", '"/assets"', into=3)
    assert site is not None
    assert (site.method, site.role, site.client) == ("POST", "endpoint", "http")
    assert site.url == "https://acme.collibra.com/rest/2.0/assets"
    header = read(JAVA, "java", '"Content-Type"', into=3)
    assert header is not None
    assert (header.method, header.role, header.name) == ("POST", "header", "Content-Type")


def test_rest_template_and_javadoc() -> None:
    site = read(JAVA, "java", "/statuses/")
    assert site is not None
    assert (site.method, site.role, site.url) == (
        "GET",
        "endpoint",
        "https://acme.collibra.com/rest/2.0/statuses/{}",
    )
    assert read(JAVA, "java", "GET /assets") is None


GROOVY = """\
// Workflow script task: tag the business item
def assetId = execution.getVariable("item").id
def request = AddAssetTagsRequest.builder()
        .assetId(string2Uuid(assetId))
        .tagNames(["reviewed"])
        .build()
def tagged = assetApi.addTagsToAsset(request)

def base = "https://acme.collibra.com/rest/2.0"
def conn = new URL("${base}/assets/${assetId}/attributes").openConnection()
conn.setRequestMethod("POST")
def page = assetApi.findAssets(name: "Customer", nameMatchMode: "EXACT")
"""


def test_a_groovy_builder_across_lines_passed_through_a_variable() -> None:
    site = read(GROOVY, "groovy", "tagNames")
    assert site is not None
    assert (site.role, site.name, site.operation, site.language) == (
        "builder",
        "tagNames",
        "addTagsToAsset",
        "groovy",
    )
    assert line_with(GROOVY, ".tagNames(")[site.start : site.end] == "tagNames"


def test_a_groovy_url_connection_and_its_request_method() -> None:
    site = read(GROOVY, "groovy", "attributes")
    assert site is not None
    assert (site.method, site.role) == ("POST", "endpoint")
    assert site.url == "https://acme.collibra.com/rest/2.0/assets/{}/attributes"


def test_groovy_named_arguments_of_a_client_call() -> None:
    site = read(GROOVY, "groovy", "nameMatchMode")
    assert site is not None
    assert (site.client, site.role, site.name, site.operation) == (
        "sdk",
        "query",
        "nameMatchMode",
        "findAssets",
    )


def test_groovy_comments_are_no_calls() -> None:
    assert read(GROOVY, "groovy", "business item") is None


# --- URLs built in variables, helper methods, more HTTP libraries ---------------------------

HELPERS = """\
public class TableClient {
    private static final String SCHEMAS = "/schemas";
    private final String root;
    private final RestTemplate rest = new RestTemplate();

    public TableClient() {
        this.root = "https://acme.collibra.com/rest/2.0";
    }

    private ResponseEntity<String> send(String url, HttpMethod verb, String body) {
        return rest.exchange(url, verb, new HttpEntity<>(body), String.class);
    }

    private String read(String path) {
        return rest.getForObject(root + path, String.class);
    }

    private String readTwice(String path) {
        return read(path);
    }

    private String spin(String path) {
        return spin(path + "/more");
    }

    public void sync(String id, int offset, Settings settings) {
        String url = root + "/tables?offset=" + offset;
        send(url, HttpMethod.GET, null);
        send(root + "/tables/" + id, HttpMethod.DELETE, null);
        read("/table/" + id);
        readTwice(SCHEMAS);
        spin("/tables");
        read(settings.tablesPath());
        HttpGet get = new HttpGet(String.format("%s/columns/%s", root, id));
        StringBuilder sb = new StringBuilder(root);
        sb.append("/columns/").append(id);
        HttpDelete delete = new HttpDelete(sb.toString());
        String listing = UriComponentsBuilder.fromHttpUrl(root).path("/columns").queryParam("name", id).toUriString();
        rest.getForObject(listing, String.class);
        client.target(root).path("schemas").path(id).request().get();
    }
}
"""


def _scanned(code: str, language: str = "java") -> list[tuple[int, str, str, str, str]]:
    return [
        (i.line, i.site.method, i.site.url, i.site.role, i.site.name)
        for i in scan_calls(code, language)
    ]


def test_urls_through_variables_helpers_and_builders() -> None:
    root = "https://acme.collibra.com/rest/2.0"
    line = {n: i for i, n in enumerate(HELPERS.splitlines())}
    at = {
        needle: next(i for t, i in line.items() if needle in t)
        for needle in (
            '"/schemas"',
            '"/tables?offset="',
            '"/tables/"',
            '"/table/"',
            "String.format",
            '"/columns/")',
            "fromHttpUrl",
            'path("schemas")',
        )
    }
    assert _scanned(HELPERS) == [
        (at['"/schemas"'], "GET", f"{root}/schemas", "endpoint", ""),
        (at['"/tables?offset="'], "GET", f"{root}/tables", "endpoint", ""),
        (at['"/tables?offset="'], "GET", f"{root}/tables", "query", "offset"),
        (at['"/tables/"'], "DELETE", f"{root}/tables/{{}}", "endpoint", ""),
        (at['"/table/"'], "GET", f"{root}/table/{{}}", "endpoint", ""),
        (at["String.format"], "GET", f"{root}/columns/{{}}", "endpoint", ""),
        (at['"/columns/")'], "DELETE", f"{root}/columns/{{}}", "endpoint", ""),
        (at["fromHttpUrl"], "GET", f"{root}/columns", "endpoint", ""),
        (at["fromHttpUrl"], "GET", f"{root}/columns", "query", "name"),
        (at['path("schemas")'], "GET", f"{root}/schemas/{{}}", "endpoint", ""),
    ]
    # The recursive `spin` and the settings' path are nothing the reader can see.
    assert read(HELPERS, "java", '"/tables");', into=2) is None


GROOVY_HELPER = """\
def host = "https://acme.collibra.com/rest/2.0"

def call(String path, String verb) {
    def conn = new URL("${host}${path}").openConnection()
    conn.setRequestMethod(verb)
    return conn
}

call("/tables", "POST")
def tableUrl = "${host}/tables/" +
    "${tableId}"
new URL(tableUrl).openConnection()
"""


def test_groovy_helpers_and_gstrings_across_lines() -> None:
    site = read(GROOVY_HELPER, "groovy", '"/tables"', into=2)
    assert site is not None
    assert (site.url, site.role) == ("https://acme.collibra.com/rest/2.0/tables", "endpoint")
    across = read(GROOVY_HELPER, "groovy", "/tables/", into=2)
    assert across is not None
    assert (across.method, across.url) == ("GET", "https://acme.collibra.com/rest/2.0/tables/{}")


def test_mutually_recursive_wrappers_and_a_long_file_stay_bounded() -> None:
    ping_pong = (
        "class A {\n"
        '  String ping(String p) { return pong(p + "/a"); }\n'
        '  String pong(String p) { return ping(p + "/b"); }\n'
        "  String get(String p) { return rest.getForObject(p, S.class); }\n"
        '  void run() { ping("/rest/2.0/tables"); get("/rest/2.0/x"); }\n'
        "}\n"
    )
    assert [s[1:3] for s in _scanned(ping_pong)] == [("GET", "/rest/2.0/x")]
    body = '    void m{n}() {{ read("/rest/2.0/tables/{n}"); }}\n'
    methods = "".join(body.format(n=n) for n in range(6000))
    long = HELPERS.replace("public void sync", methods + "public void sync")
    # Every call goes through the helper; the scan stops at its site limit, not later.
    assert len(scan_calls(long, "java", budget_s=600)) == 5000


def test_generated_clients_with_http_info_and_jax_rs_targets() -> None:
    code = (
        "class S {\n"
        "  void run() {\n"
        "    var page = tablesApi.findTablesWithHttpInfo(0, 10);\n"
        '    client.target("https://h/rest/2.0").path("tables").request().get();\n'
        "  }\n"
        "}\n"
    )
    site = read(code, "java", "findTablesWithHttpInfo")
    assert site is not None and (site.role, site.operation) == ("operation", "findTables")
    assert read(code, "java", "target") is None  # JAX-RS's client, not a generated one


def test_a_helper_call_site_is_checked_where_its_path_is_written(engine: Engine) -> None:
    code = (
        "class Sync {\n"
        '    private final String base = "https://acme.collibra.com/rest/2.0";\n'
        "    private String read(String path) {\n"
        "        return rest.getForObject(base + path, String.class);\n"
        "    }\n"
        "    void run(String id, Settings settings) {\n"
        '        read("/asset?name=" + id);\n'
        '        read("/assets");\n'
        "        read(settings.path());\n"
        "    }\n"
        "}\n"
    )
    found = engine.check_code(code, "java")
    assert [(f.line, f.check) for f in found] == [(6, "unknown-endpoint")]
    assert code.splitlines()[6][found[0].start : found[0].end] == "/asset?name="


SPRING = """\
class LineageSync {
    private final RelationsApi relationsApi;
    private final DomainsApi domainsApi;
    private final String base = "https://catalog.example.invalid/rest/2.0";

    void run(List<AddRelationRequest> links, List<UUID> ids, String n, UUID d, UUID t) {
        links.forEach(relationsApi::addRelation);
        ids.stream().map(this.domainsApi::getDomain).forEach(System.out::println);
        ids.stream().map(this::describe).forEach(cache::put);
        String url = UriComponentsBuilder.fromHttpUrl(base + "/assets")
                .queryParam("nameMatchMode", "EXACT").queryParam("domain", d).toUriString();
        rest.getForObject(url, String.class);
        rest.exchange(base + "/assets", HttpMethod.POST,
                new HttpEntity<>(Map.of("name", n, "domainId", d)), String.class);
        Map<String, Object> body = new HashMap<>();
        body.put("sourceId", d);
        body.put("targetID", t);
        HttpEntity<Map<String, Object>> entity = new HttpEntity<>(body, headers);
        rest.exchange(base + "/relations", HttpMethod.POST, entity, String.class);
        Map<String, String> labels = new HashMap<>();
        labels.put("name", n);
        Map<String, Object> vars = Map.of("name", n);
        rest.getForObject(base + "/assets?name={name}", String.class, vars);
    }
}
"""


def test_method_references_on_a_client_name_its_operations() -> None:
    kept = [(i.site.role, i.site.operation) for i in scan_calls(SPRING, "java")]
    assert ("operation", "addRelation") in kept
    assert ("operation", "getDomain") in kept
    assert ("operation", "describe") not in kept and ("operation", "put") not in kept
    site = read(SPRING, "java", "addRelation")
    assert site is not None and (site.client, site.role) == ("sdk", "operation")


def test_spring_query_params_and_entity_maps_are_request_keys() -> None:
    root = "https://catalog.example.invalid/rest/2.0"
    keys = [
        (i.site.method, i.site.url, i.site.role, i.site.name)
        for i in scan_calls(SPRING, "java")
        if i.site.role in ("query", "body")
    ]
    assert keys == [
        ("GET", f"{root}/assets", "query", "nameMatchMode"),
        ("GET", f"{root}/assets", "query", "domain"),
        ("POST", f"{root}/assets", "body", "name"),
        ("POST", f"{root}/assets", "body", "domainId"),
        ("POST", f"{root}/relations", "body", "sourceId"),
        ("POST", f"{root}/relations", "body", "targetID"),
        ("GET", f"{root}/assets", "query", "name"),  # in the URL; `vars` are its URI variables
    ]  # and the unsent `labels` are no request's keys
    put = read(SPRING, "java", '"targetID"', into=2)
    assert put is not None and put.path_keys == ("sourceId", "targetID") and put.complete


def test_checks_of_spring_keys_and_method_references(engine: Engine) -> None:
    found = engine.check_code(SPRING, "java")
    lines = SPRING.splitlines()
    got = [(f.line, f.check, lines[f.line][f.start : f.end]) for f in found]
    assert got == [
        (10, "unknown-param", "domain"),
        (13, "missing-required", '("name'),  # no typeId in the Map.of: from its opening
        (15, "missing-required", "sourceId"),  # nor in the map filled with put
        (16, "unknown-param", "targetID"),
    ]


def test_every_reader_of_a_scan_shares_one_use_filter() -> None:
    # The scan's NameMemo keys each name search by its filter: a bound method per reader would
    # make every read search the whole file again (a Java class of 800 methods: 4.7 s -> 0.5 s).
    from atlas_core.recognize.calls.tree_reader import reader_for
    from atlas_core.syntax import parse_once

    code = (
        'class C { Object f(String id) { String url = "/rest/2.0/assets/" + id; return url; } }\n'
    )
    document, tree = parse_once(code, "java")
    assert tree is not None
    reader = reader_for("java")
    assert reader is not None
    first = reader(document, tree.root_node, "java", 0, 40)
    second = reader(document, tree.root_node, "java", 0, 50)
    assert first.is_use is second.is_use


def _keys_read(code: str, roles: tuple[str, ...]) -> list[tuple[int, str, str, str]]:
    """(line, method, role, name) of every site of `roles` the scan of Java `code` reads."""
    return [
        (i.line, i.site.method, i.site.role, i.site.name)
        for i in scan_calls(code, "java")
        if i.site.role in roles
    ]


def _findings(engine: Engine, code: str) -> list[tuple[int, str, str]]:
    """(line, check, the text it covers) of every finding on Java `code`."""
    lines = code.splitlines()
    return [
        (f.line, f.check, lines[f.line][f.start : f.end]) for f in engine.check_code(code, "java")
    ]


WEBCLIENT = """\
class TagSync {
    Mono<String> find(UUID d) {
        return client.get()
                .uri(b -> b.path("/rest/2.0/assets").queryParam("domainId", d)
                        .queryParam("limt", 10).build())
                .retrieve().bodyToMono(String.class);
    }

    Mono<String> add(String n, UUID t) {
        Map<String, Object> body = new HashMap<>();
        body.put("name", n);
        body.put("typeId", t);
        return client.post().uri("/rest/2.0/assets").bodyValue(body).retrieve().bodyToMono(String.class);
    }

    Mono<String> relate(UUID s) {
        return client.post().uri(u -> u.path("/rest/2.0/relations").build())
                .bodyValue(Map.of("sourceId", s, "targetID", s, "typeId", s)).retrieve().bodyToMono(String.class);
    }
}
"""


def test_webclient_uri_builder_lambdas_and_body_values(engine: Engine) -> None:
    """WebClient's ``uri(b -> b.path(p).queryParam(k, v).build())`` is the request's URL, and a
    map handed to ``bodyValue`` is its body, as an entity handed to RestTemplate is."""
    keys = _keys_read(WEBCLIENT, ("query", "body"))
    assert keys == [
        (3, "GET", "query", "domainId"),
        (4, "GET", "query", "limt"),
        (10, "POST", "body", "name"),
        (11, "POST", "body", "typeId"),
        (17, "POST", "body", "sourceId"),
        (17, "POST", "body", "targetID"),
        (17, "POST", "body", "typeId"),
    ]
    got = _findings(engine, WEBCLIENT)
    assert got == [
        (4, "unknown-param", "limt"),
        (10, "missing-required", "name"),  # no domainId put into the map
        (17, "unknown-param", "targetID"),
    ]


CONNECTIONS = """\
class Cleanup {
    void remove(String base, String id) throws IOException {
        URL url = new URL(base + "/rest/2.0/assets/" + id);
        HttpURLConnection conn = (HttpURLConnection) url.openConnection();
        conn.setRequestMethod("DELETE");
    }

    void rename(String base, String id) throws IOException {
        HttpURLConnection conn;
        conn = (HttpURLConnection) new URL(base + "/rest/2.0/domains/" + id).openConnection();
        conn.setRequestMethod("PATCH");
    }

    InputStream read(String base, String id) throws IOException {
        return new URL(base + "/rest/2.0/communities/" + id).openConnection().getInputStream();
    }

    URLConnection open(String base, String id) throws IOException {
        return new URL(base + "/rest/2.0/users/" + id).openConnection();
    }
}
"""


def test_a_connection_cast_or_assigned_keeps_the_method_set_on_it() -> None:
    """``(HttpURLConnection) url.openConnection()`` then ``setRequestMethod("DELETE")`` is a
    DELETE; read as a GET it resolved to another operation. A connection handed on has its method
    set where it goes: unknown here, not GET."""
    endpoints = {
        (i.line, i.site.method)
        for i in scan_calls(CONNECTIONS, "java")
        if i.site.role == "endpoint"
    }
    assert {(2, "DELETE"), (9, "PATCH"), (14, "GET"), (18, "")} <= endpoints
    assert not {(2, "GET"), (9, "GET"), (18, "GET")} & endpoints


URL_BUILDER_CLASSES = """\
class Finder {
    Response find(String base, String n) throws IOException {
        HttpUrl url = HttpUrl.parse(base + "/rest/2.0/assets").newBuilder()
                .addQueryParameter("name", n)
                .addQueryParameter("limt", "5")
                .build();
        return client.newCall(new Request.Builder().url(url).build()).execute();
    }

    Response tags(String base, String id) throws IOException {
        HttpUrl url = HttpUrl.parse(base).newBuilder().addPathSegments("rest/2.0/assets")
                .addPathSegment(id).build();
        return client.newCall(new Request.Builder().url(url).build()).execute();
    }

    String domains(String base) throws Exception {
        URI uri = new URIBuilder(base + "/rest/2.0/assets").addParameter("nameMatchMode", "ANYWHERE")
                .setParameter("Name", c).build();
        return EntityUtils.toString(http.execute(new HttpGet(uri)).getEntity());
    }
}
"""


def test_okhttp_and_apache_url_builders(engine: Engine) -> None:
    """OkHttp's ``HttpUrl.parse(u).newBuilder().addQueryParameter(k, v)`` and Apache's ``new
    URIBuilder(u).addParameter(k, v)`` build the URL a request sends, keys and path segments
    included."""
    read = {
        (i.line, i.site.method, i.site.role, i.site.name)
        for i in scan_calls(URL_BUILDER_CLASSES, "java")
        if i.site.role in ("query", "endpoint")
    }
    assert {(3, "GET", "query", "name"), (4, "GET", "query", "limt")} <= read
    assert {(16, "GET", "query", "nameMatchMode"), (17, "GET", "query", "Name")} <= read
    targets = {
        (i.line, t.method, t.path)
        for i in scan_calls(URL_BUILDER_CLASSES, "java")
        if i.site.role == "endpoint"
        and (t := engine.resolve_call(i.site, define=False)) is not None
    }
    assert {(2, "GET", "/assets"), (16, "GET", "/assets")} <= targets
    segments = [i.site.url for i in scan_calls(URL_BUILDER_CLASSES, "java") if i.line == 10]
    assert segments == ["{}/rest/2.0/assets/{}"]  # the base, then the path segments added
    got = _findings(engine, URL_BUILDER_CLASSES)
    assert got == [(4, "unknown-param", "limt"), (17, "unknown-param", "Name")]


RETROFIT = """\
public interface CatalogService {
    @GET("rest/2.0/assets")
    Call<AssetPage> find(@Query("name") String name, @Query("limt") int limit);

    @Headers("Accept: application/json")
    @DELETE("rest/2.0/assets/{assetId}")
    Call<Void> remove(@Path("assetId") String id);

    @POST("/rest/2.0/asset")
    Call<Asset> add(@Body AddAssetRequest body);
}

@Path("/rest/2.0/assets")
public class AssetResource {
    @GET
    @Path("/{id}")
    public Asset get(@PathParam("id") String id, @QueryParam("limt") int l) { return null; }
}
"""


def test_retrofit_interfaces_make_their_requests(engine: Engine) -> None:
    """A Retrofit method's ``@GET("rest/2.0/assets")`` is its request (relative to a base URL
    ending in its slash) and its ``@Query`` parameters the query keys; a JAX-RS resource (a
    server: ``@GET`` with no argument) is no request."""
    read = _keys_read(RETROFIT, ("query", "endpoint"))
    assert read == [
        (1, "GET", "endpoint", ""),
        (2, "GET", "query", "name"),
        (2, "GET", "query", "limt"),
        (5, "DELETE", "endpoint", ""),
        (8, "POST", "endpoint", ""),
    ]
    got = _findings(engine, RETROFIT)
    assert got == [(2, "unknown-param", "limt"), (8, "unknown-endpoint", "/rest/2.0/asset")]


GROOVY_READS = """\
def found = new JsonSlurper().parseText(new URL("${base}/rest/2.0/assets?name=${n}").getText())
def all = "${base}/rest/2.0/communities".toURL().text
def conn = new URL("${base}/rest/2.0/assets/${id}").openConnection()
conn.requestMethod = 'DELETE'
def other = new File("/rest/2.0/notes.txt").text
"""


def test_groovy_url_reads_and_a_method_set_as_a_property() -> None:
    """Groovy reads a URL with ``getText()``/``.text`` (a GET) and sets a connection's method as a
    property (``conn.requestMethod = 'DELETE'``), which read as a GET before."""
    endpoints = [
        (i.line, i.site.method, i.site.url)
        for i in scan_calls(GROOVY_READS, "groovy")
        if i.site.role == "endpoint"
    ]
    assert endpoints == [
        (0, "GET", "{}/rest/2.0/assets"),
        (1, "GET", "{}/rest/2.0/communities"),
        (2, "DELETE", "{}/rest/2.0/assets/{}"),
    ]
