"""Python test doubles of HTTP clients (``requests_mock``, ``responses``, ``respx``, pytest-httpx,
aioresponses) register a fake server's answer for a URL and a method: their ``json`` is a response,
no request is sent, so none of them is read as a call (each was read as one, and its response
fields flagged as unknown request body keys)."""

from __future__ import annotations

from atlas_core.recognize import scan_calls

URL = "https://acme.collibra.com/rest/2.0"


def _calls(text: str) -> list[tuple[int, str, str]]:
    return sorted({(i.line, i.site.method, i.site.url) for i in scan_calls(text, "python")})


def test_doubles_named_for_a_mock_register_answers() -> None:
    text = (
        "def test_fetch(requests_mock, httpx_mock):\n"
        f'    requests_mock.post("{URL}/auth/sessions", json={{"csrfToken": "t"}})\n'
        f'    httpx_mock.add_response(method="POST", url="{URL}/relations", json={{"id": "r"}})\n'
    )
    assert _calls(text) == []


def test_doubles_made_by_a_mock_library_register_answers() -> None:
    text = (
        "import requests_mock, responses, respx\n"
        "from aioresponses import aioresponses\n"
        "\n"
        "def test_a():\n"
        "    with requests_mock.Mocker() as m:\n"
        f'        m.post("{URL}/assets", json={{"id": "1", "resourceType": "Asset"}})\n'
        "    with responses.RequestsMock() as box:\n"
        f'        box.add(method="POST", url="{URL}/domains", json={{"createdBy": "x"}})\n'
        f'    responses.post("{URL}/auth/sessions", json={{"userId": "u"}})\n'
        f'    respx.post("{URL}/assets").mock(return_value=None)\n'
        "    fake = aioresponses()\n"
        f'    fake.post("{URL}/assets", payload={{"id": "a"}})\n'
    )
    assert _calls(text) == []


def test_a_real_client_beside_the_doubles_is_still_read() -> None:
    text = (
        "import requests, requests_mock\n"
        "\n"
        "def test_a():\n"
        "    with requests_mock.Mocker() as m:\n"
        f'        m.get("{URL}/assets", json={{"results": []}})\n'
        "    with requests.Session() as s:\n"
        f'        s.post("{URL}/assets", json={{"name": "n", "domainId": "d", "typeId": "t"}})\n'
    )
    assert _calls(text) == [(6, "POST", f"{URL}/assets")]


def test_test_clients_of_the_documents_own_app_send_to_that_app() -> None:
    text = (
        "import httpx\n"
        "from django.test import Client\n"
        "from fastapi.testclient import TestClient\n"
        "\n"
        "def test_app(app, aiohttp_client):\n"
        "    flask = app.test_client()\n"
        '    flask.post("/rest/2.0/assets", json={"foo": 1})\n'
        '    TestClient(app).get("/rest/2.0/assets", params={"page": 2})\n'
        '    Client().post("/rest/2.0/assets", {"assetName": "x"})\n'
        "    with httpx.Client(transport=httpx.WSGITransport(app=app)) as wsgi:\n"
        '        wsgi.post("/rest/2.0/domains", json={"title": "x"})\n'
        "\n"
        "async def test_async(app, aiohttp_client):\n"
        "    served = await aiohttp_client(app)\n"
        '    await served.post("/rest/2.0/assets", json={"label": "x"})\n'
        "    async with httpx.AsyncClient(app=app, base_url='http://t') as ac:\n"
        '        await ac.post("/rest/2.0/assets", json={"label": "x"})\n'
        "\n"
        "def test_fixture(client):\n"
        '    client.post("/rest/2.0/communities", json={"title": "x"})\n'
    )
    assert _calls(text) == []


def test_a_client_with_a_real_transport_still_sends() -> None:
    text = (
        "import httpx\n"
        "\n"
        "client = httpx.Client(transport=httpx.HTTPTransport(retries=3))\n"
        f'client.get("{URL}/assets", params={{"limit": 5}})\n'
        "\n"
        "def helper(client):\n"
        f'    client.get("{URL}/domains")\n'
    )
    assert _calls(text) == [(3, "GET", f"{URL}/assets"), (6, "GET", f"{URL}/domains")]
