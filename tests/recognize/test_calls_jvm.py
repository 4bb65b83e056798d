"""Java and Groovy: generated-client builders, java.net.http request builders, Spring's
RestTemplate, and Groovy's URL connections."""

from __future__ import annotations

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
