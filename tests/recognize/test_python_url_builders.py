"""Python URLs made by the code's own builder functions (``def asset_url(i): return
f"{BASE}/rest/2.0/assets/{i}"``): a call of one is read as the URL its one ``return`` makes with
the call's arguments, and the builder's literal belongs to the request its call sends."""

from __future__ import annotations

from atlas_core.recognize import ENDPOINT, scan_calls


def _endpoints(text: str) -> list[tuple[int, str, str]]:
    return [
        (i.line, i.site.method, i.site.url)
        for i in scan_calls(text, "python")
        if i.site.role == ENDPOINT and "/rest/" in i.site.url
    ]


def test_a_builders_literal_is_read_with_the_method_of_its_call() -> None:
    text = (
        'HOST = "https://dg.example.org"\n'
        "\n"
        "def tag_url(tag_id):\n"
        '    return f"{HOST}/rest/2.0/tags/{tag_id}"\n'
        "\n"
        "def pick(kind):\n"
        "    if kind:\n"
        '        return HOST + "/rest/2.0/domains"\n'
        '    return HOST + "/rest/2.0/communities"\n'
        "\n"
        "def loop(p):\n"
        "    return loop(p + loop(p)) + loop(p)\n"
        "\n"
        "resp = requests.delete(tag_url(42), auth=AUTH)\n"
        "requests.get(pick(x))\n"
        'requests.get(loop("/rest/2.0/assets"))\n'
    )
    # which of two returns `pick` gives is unknown, and a recursive builder ends unread
    assert [f for f in _endpoints(text) if f[0] > 0] == [
        (3, "DELETE", "https://dg.example.org/rest/2.0/tags/{}")
    ]


def test_a_path_passed_to_a_builder_is_part_of_the_url() -> None:
    text = (
        "class Dgc:\n"
        "    def __init__(self, cfg):\n"
        '        self.root = cfg["url"].rstrip("/")\n'
        "\n"
        "    def api(self, path: str) -> str:\n"
        "        return f\"{self.root}/rest/2.0/{path.lstrip('/')}\"\n"
        "\n"
        "    def start(self, body):\n"
        '        return requests.post(self.api("/workflowInstances"), json=body)\n'
        "\n"
        "def fetch(path):\n"
        '    return requests.get(BASE + "/rest/2.0/" + path).json()\n'
        "\n"
        'print(fetch("assets"))\n'
    )
    assert _endpoints(text) == [
        (5, "POST", "{}/rest/2.0/workflowInstances"),  # the builder's literal, as its call sends
        (8, "POST", "{}/rest/2.0/workflowInstances"),
        (13, "GET", "{}/rest/2.0/assets"),  # a function sending the request is a wrapper
    ]


def test_a_lambda_builder_and_os_path_join() -> None:
    text = (
        'endpoint = lambda name: f"{HOST}/rest/2.0/{name}"\n'
        'requests.get(endpoint("roles"), auth=AUTH)\n'
        'requests.delete(os.path.join(HOST, "rest/2.0/roles/", role_id), auth=AUTH)\n'
    )
    assert _endpoints(text) == [
        (0, "GET", "{}/rest/2.0/roles"),
        (1, "GET", "{}/rest/2.0/roles"),
        (2, "DELETE", "{}/rest/2.0/roles/{}"),
    ]


def test_one_url_name_sent_by_calls_of_several_methods_reads_as_each_call() -> None:
    code = (
        "def swap(tag_id):\n"
        '    url = f"{ROOT}/rest/2.0/tags/{tag_id}"\n'
        "    old = requests.get(url).json()\n"
        "    requests.delete(url)\n"
        "    return old\n"
    )
    read = {
        (item.line, item.site.method)
        for item in scan_calls(code, "python")
        if item.site.role == ENDPOINT
    }
    assert (3, "DELETE") in read and (1, "GET") in read


def test_a_builder_sent_by_several_requests_is_read_at_each() -> None:
    text = (
        "import requests\n"
        "\n"
        "class Paths:\n"
        "    def __init__(self, root):\n"
        "        self.root = root\n"
        "\n"
        "    def tag(self, tag_id):\n"
        '        return f"{self.root}/rest/2.0/tags/{tag_id}"\n'
        "\n"
        "def status_url(i):\n"
        '    return HOST + "/rest/2.0/statuses/" + i\n'
        "\n"
        'paths = Paths("https://dg.example.org")\n'
        "http = requests.Session()\n"
        "def read(t):\n"
        "    return http.get(paths.tag(t)).json()\n"
        "def drop(t):\n"
        "    http.delete(paths.tag(t))\n"
        "    http.patch(status_url(t), json={})\n"
        "    requests.delete(status_url(t))\n"
    )
    # each call with its own method, the builders' literals as none of them
    assert _endpoints(text) == [
        (15, "GET", "{}/rest/2.0/tags/{}"),
        (17, "DELETE", "{}/rest/2.0/tags/{}"),
        (18, "PATCH", "{}/rest/2.0/statuses/{}"),
        (19, "DELETE", "{}/rest/2.0/statuses/{}"),
    ]
