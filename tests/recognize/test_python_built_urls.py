"""Python URLs built up in several statements: a query string added to branch by branch
(``url = url + "&typeId=" + t``, ``url += ...``) is followed to its start however many steps
it takes (up to a bound), so the endpoint and every key added are read."""

from __future__ import annotations

from atlas_core.recognize import ENDPOINT, QUERY, scan_calls


def _sites(text: str) -> list[tuple[int, str, str, str]]:
    return [
        (i.line, i.site.role, i.site.method, i.site.name or i.site.url)
        for i in scan_calls(text, "python")
        if i.site.role in (ENDPOINT, QUERY)
    ]


def test_a_query_string_added_to_in_many_branches_keeps_its_endpoint() -> None:
    text = (
        "import requests\n"
        "\n"
        "def find(host, a, b, c, d):\n"
        '    u = f"https://{host}/rest/2.0/relations?limit=5"\n'
        "    if a:\n"
        '        u = u + "&sourceId=" + a\n'
        "    if b:\n"
        '        u += "&targetId=" + b\n'
        "    if c:\n"
        '        u = u + f"&relationTypeId={c}"\n'
        "    if d:\n"
        '        u = u + "&offset=" + d\n'
        '    page = u + "&countLimit=-1"\n'
        "    return requests.get(page)\n"
    )
    url = "https://{}/rest/2.0/relations"
    assert _sites(text) == [
        (3, ENDPOINT, "GET", url),
        (3, QUERY, "GET", "limit"),
        (5, QUERY, "GET", "sourceId"),
        (7, QUERY, "GET", "targetId"),
        (9, QUERY, "GET", "relationTypeId"),
        (11, QUERY, "GET", "offset"),
        (12, QUERY, "GET", "countLimit"),
    ]
    # ``self.url``'s assignments are not ordered: its start is not known, nothing is repeated
    text = (
        "import requests\n"
        "\n"
        "class Client:\n"
        "    def go(self, n):\n"
        '        self.url = self.url + "/rest/2.0/assets?name=" + n\n'
        "        return requests.get(self.url)\n"
    )
    assert all("assets/rest" not in url for *_, url in _sites(text))


def test_a_parameters_string_default_is_its_value_where_the_function_is_read_alone() -> None:
    text = (
        "import requests\n"
        "\n"
        "class Reports:\n"
        "    def listing(self, kind='rest/2.0/activities', limit=100, base=None):\n"
        "        url = self.root + kind + '?limit=' + str(limit) + '&ofset=0'\n"
        "        return self.s.get(url).json()\n"
        "\n"
        "    def other(self, path=None):\n"
        "        return self.s.get(self.root + path + '?limit=5')\n"
    )
    assert _sites(text) == [(4, QUERY, "GET", "limit"), (4, QUERY, "GET", "ofset")]
    # a default that is no string (None) stays unknown
    urls = {i.site.url for i in scan_calls(text, "python")}
    assert urls == {"{}rest/2.0/activities"}
