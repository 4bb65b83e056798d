"""Groovy (`new URL(...).openConnection()` with a map body) and Java (`java.net.http`,
Spring's `RestTemplate`, OkHttp) call shapes. The body is JSON text or a map, which the call
reader does not read key by key, so these shapes carry only endpoint-level mistakes."""

from __future__ import annotations

import json
import random

from benchmarks.devset.apicases.request import (
    Request,
    class_name,
    concat_path,
    fn_name,
    groovy,
    json_text,
    path_with,
    query_string,
)


def _url_expr(req: Request) -> str:
    """`BASE + "/assets/" + assetId + "/tags?limit=100"`."""
    segments = list(req.segments)
    query = query_string(req.query)
    expr = concat_path(segments, lambda p: p)
    if query:
        expr = expr[:-1] + query + '"' if expr.endswith('"') else expr + f' + "{query}"'
    return "BASE + " + expr


def _java_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _java_params(req: Request) -> str:
    names = list(dict.fromkeys(req.params))
    if req.body_kind == "opaque":
        names.append("viewConfig")
    return ", ".join(f"String {n}" for n in names)


def _javadoc(req: Request) -> list[str]:
    return [f"    /** {req.prose} */"] if req.prose else []


def _json_body(req: Request) -> str:
    return "viewConfig" if req.body_kind == "opaque" else _java_string(json_text(req.body))


def groovy_url(req: Request, rng: random.Random) -> list[str]:
    path = path_with(req.segments, lambda p: "${" + p + "}")
    lines = [
        "import groovy.json.JsonOutput",
        "import groovy.json.JsonSlurper",
        "",
    ]
    if req.prose:
        lines.append(f"// {req.prose}")
    lines.append('def base = "https://acme.collibra.com/rest/2.0"')
    for p in dict.fromkeys(req.params):
        lines.append(f'def {p} = execution.getVariable("{p}")')
    lines += [
        f'def conn = new URL("${{base}}{path}{query_string(req.query)}").openConnection()',
        f'conn.setRequestMethod("{req.method}")',
        'conn.setRequestProperty("Authorization", "Bearer " + token)',
    ]
    if req.sends_body:
        payload = "viewConfig" if req.body_kind == "opaque" else groovy(req.body)
        lines += [
            'conn.setRequestProperty("Content-Type", "application/json")',
            "conn.doOutput = true",
            f"conn.outputStream.withWriter {{ it << JsonOutput.toJson({payload}) }}",
        ]
    lines += [
        "def result = new JsonSlurper().parse(conn.inputStream)",
        'execution.setVariable("result", result)',
    ]
    return lines


def java_httpclient(req: Request, rng: random.Random) -> list[str]:
    publisher = (
        "HttpRequest.BodyPublishers.ofString(json)"
        if req.sends_body
        else "HttpRequest.BodyPublishers.noBody()"
    )
    body = [f"        String json = {_json_body(req)};"] if req.sends_body else []
    if req.method in ("GET", "DELETE") and not req.sends_body:
        verb = f".{req.method}()"
    elif req.method in ("POST", "PUT"):
        verb = f".{req.method}({publisher})"
    else:
        verb = f'.method("{req.method}", {publisher})'
    cls = class_name(req.op, "Sync")
    return [
        "import java.net.URI;",
        "import java.net.http.HttpClient;",
        "import java.net.http.HttpRequest;",
        "import java.net.http.HttpResponse;",
        "",
        f"public class {cls} {{",
        '    private static final String BASE = "https://acme.collibra.com/rest/2.0";',
        "    private final HttpClient http = HttpClient.newHttpClient();",
        "",
        *_javadoc(req),
        f"    public String {fn_name(req.op, 'java')}({_java_params(req)}) throws Exception {{",
        *body,
        "        HttpRequest request = HttpRequest.newBuilder()",
        f"                .uri(URI.create({_url_expr(req)}))",
        '                .header("Content-Type", "application/json")',
        f"                {verb}",
        "                .build();",
        "        return http.send(request, HttpResponse.BodyHandlers.ofString()).body();",
        "    }",
        "}",
    ]


def java_resttemplate(req: Request, rng: random.Random) -> list[str]:
    url = _url_expr(req)
    body = [f"        String json = {_json_body(req)};"] if req.sends_body else []
    entity = "new HttpEntity<>(json, headers)" if req.sends_body else "null"
    m = req.method
    if m == "GET":
        call = f"        return rest.getForObject({url}, String.class);"
    elif m == "POST":
        call = f"        return rest.postForObject({url}, {entity}, String.class);"
    elif m == "PATCH":
        call = f"        return rest.patchForObject({url}, {entity}, String.class);"
    else:
        call = f"        return rest.exchange({url}, HttpMethod.{m}, {entity}, String.class).getBody();"
    cls = class_name(req.op, "Sync")
    return [
        "import org.springframework.http.HttpEntity;",
        "import org.springframework.http.HttpHeaders;",
        "import org.springframework.http.HttpMethod;",
        "import org.springframework.http.MediaType;",
        "import org.springframework.web.client.RestTemplate;",
        "",
        f"public class {cls} {{",
        '    private static final String BASE = "https://acme.collibra.com/rest/2.0";',
        "    private final RestTemplate rest;",
        "    private final HttpHeaders headers = new HttpHeaders();",
        "",
        f"    public {cls}(RestTemplate rest) {{",
        "        this.rest = rest;",
        "        headers.setContentType(MediaType.APPLICATION_JSON);",
        "    }",
        "",
        *_javadoc(req),
        f"    public String {fn_name(req.op, 'java')}({_java_params(req)}) {{",
        *body,
        call,
        "    }",
        "}",
    ]


def java_okhttp(req: Request, rng: random.Random) -> list[str]:
    body = (
        [f"        RequestBody body = RequestBody.create({_json_body(req)}, JSON);"]
        if req.sends_body
        else []
    )
    m = req.method.lower()
    verb = (
        f".{m}(body)"
        if req.sends_body
        else (f".{m}()" if m in ("get", "delete") else f".{m}(EMPTY)")
    )
    cls = class_name(req.op, "Sync")
    return [
        "import java.io.IOException;",
        "import okhttp3.MediaType;",
        "import okhttp3.OkHttpClient;",
        "import okhttp3.Request;",
        "import okhttp3.RequestBody;",
        "import okhttp3.Response;",
        "",
        f"public class {cls} {{",
        '    private static final String BASE = "https://acme.collibra.com/rest/2.0";',
        '    private static final MediaType JSON = MediaType.get("application/json");',
        '    private static final RequestBody EMPTY = RequestBody.create("", JSON);',
        "    private final OkHttpClient http = new OkHttpClient();",
        "",
        *_javadoc(req),
        f"    public String {fn_name(req.op, 'java')}({_java_params(req)}) throws IOException {{",
        *body,
        "        Request request = new Request.Builder()",
        f"                .url({_url_expr(req)})",
        f"                {verb}",
        "                .build();",
        "        try (Response response = http.newCall(request).execute()) {",
        "            return response.body().string();",
        "        }",
        "    }",
        "}",
    ]
