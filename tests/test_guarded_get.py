"""One guarded GET for articles and images (workbench.articles.guarded): private, loopback and
link-local addresses are refused on every hop unless the user allows them, against real
servers on 127.0.0.1; the same setting (search_fetch_private) allows both."""

from __future__ import annotations

import asyncio
import ipaddress
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from tests.article_fetching import PARAGRAPHS, article, claims_for, fetch
from tests.loopback_images import ImageServer
from tests.loopback_pages import PageServer, article_html
from workbench.articles.guarded import is_private
from workbench.cli import main
from workbench.search.image_fetch import FetchedImage, FetchRefused, ImageFetcher

REFUSED = "is a private or local address (not fetched; search_fetch_private = true in the config allows it)"


def test_an_article_on_loopback_is_not_fetched_unless_allowed(store, db_path, tmp_path):
    with PageServer() as site:
        site.page("/internal", article_html("An internal page", PARAGRAPHS))
        claims_for(store, tmp_path, {"a": site.url + "/internal"})
        fetch(db_path, store, allow_private=False)
        refused = article(store, site.url + "/internal")
        assert (refused.status, refused.cause) == ("failed", "private address")
        assert refused.detail == f"127.0.0.1 {REFUSED}" and refused.text is None
        assert site.paths() == []  # not even its robots.txt was asked for
        fetch(db_path, store, allow_private=True)
        assert article(store, site.url + "/internal").status == "fetched"


def test_a_name_that_resolves_to_loopback_is_refused(store, db_path, tmp_path):
    with PageServer() as site:
        site.page("/internal", article_html("An internal page", PARAGRAPHS))
        url = site.url.replace("127.0.0.1", "localhost") + "/internal"
        claims_for(store, tmp_path, {"a": url})
        fetch(db_path, store, allow_private=False)
        assert (article(store, url).cause, article(store, url).detail) == ("private address", f"localhost {REFUSED}")
        assert site.paths() == []


@pytest.mark.parametrize("target", ["127.0.0.1", "localhost"])
def test_a_redirect_to_loopback_is_refused_on_its_hop(store, db_path, tmp_path, target):
    with PageServer() as site, PageServer() as inside:
        inside.page("/admin", article_html("Admin console", PARAGRAPHS))
        site.redirect("/story", f"http://{target}:{urlsplit(inside.url).port}/admin", 302)
        claims_for(store, tmp_path, {"a": site.url + "/story"})
        # The first server is allowed by name (as a lab's own server would be); its redirect is not.
        fetch(db_path, store, allow_private=False, private_hosts=frozenset({site.netloc}))
        refused = article(store, site.url + "/story")
        assert (refused.cause, refused.detail) == ("private address", f"{target} {REFUSED}")
        assert "/story" in site.paths() and inside.paths() == []


def test_the_link_local_metadata_address_is_refused_without_a_connection(store, db_path, tmp_path):
    url = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"
    claims_for(store, tmp_path, {"m": url, "v6": "http://[fe80::1]/x", "mapped": "http://[::ffff:127.0.0.1]/x"})
    # One try, a long timeout: a connection attempt would end as "timeout" or "connection".
    fetch(db_path, store, allow_private=False, attempts=1, timeout=30.0)
    for address, host in (
        (url, "169.254.169.254"),
        ("http://[fe80::1]/x", "fe80::1"),
        ("http://[::ffff:127.0.0.1]/x", "::ffff:127.0.0.1"),
    ):
        refused = article(store, address)
        assert (refused.cause, refused.detail, refused.attempts) == ("private address", f"{host} {REFUSED}", 1)


def cli(db_path, *args):
    return CliRunner().invoke(main, ["--db", str(db_path), *map(str, args)], terminal_width=120)


def test_articles_fetch_obeys_the_same_setting_as_images(store, db_path, tmp_path, monkeypatch):
    with PageServer() as site:
        site.page("/a", article_html("A check", PARAGRAPHS))
        claims_for(store, tmp_path, {"a": site.url + "/a"})
        refused = cli(db_path, "articles", "fetch", "--dataset", "cr")
        assert refused.exit_code == 1 and "0 fetched, 1 failed (private address 1)" in refused.output
        assert site.paths() == []
        monkeypatch.setenv("WORKBENCH_SEARCH_FETCH_PRIVATE", "true")
        allowed = cli(db_path, "articles", "fetch", "--dataset", "cr")
        assert allowed.exit_code == 0, allowed.output
        assert "1 fetched, 0 failed" in allowed.output and "/a" in site.paths()


def fetch_image(store, url: str, **options) -> FetchedImage | FetchRefused:
    async def go():
        fetcher = ImageFetcher(store, **options)
        try:
            return await fetcher.fetch(url)
        finally:
            await fetcher.aclose()

    return asyncio.run(go())


def test_an_image_redirect_to_loopback_is_refused_by_the_same_guard(store):
    with ImageServer() as pictures:
        netloc = urlsplit(pictures.url("/")).netloc
        # /elsewhere.png redirects to /photo.png on localhost: allowed by name, the hop is not.
        refused = fetch_image(store, pictures.url("/elsewhere.png"), private_hosts=frozenset({netloc}))
        assert isinstance(refused, FetchRefused) and refused.reason == f"localhost {REFUSED}"
        assert pictures.hits == {"/elsewhere.png": 1}
        fetched = fetch_image(store, pictures.url("/moved.png"), allow_private=True)
        assert isinstance(fetched, FetchedImage) and fetched.final_url == pictures.url("/photo.png")


private_networks = st.sampled_from(
    [
        "127.0.0.0/8",
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "169.254.0.0/16",
        "100.64.0.0/10",
        "0.0.0.0/8",
        "::1/128",
        "fe80::/10",
        "fc00::/7",
    ]
)


@given(network=private_networks, offset=st.integers(0, 2**32))
def test_any_address_in_a_private_network_is_private_in_every_spelling(network, offset):
    net = ipaddress.ip_network(network)
    address = net[offset % net.num_addresses]
    assert is_private(str(address))
    if address.version == 4:
        assert is_private(f"::ffff:{address}")


@given(st.sampled_from(["93.184.215.14", "151.101.1.140", "2606:4700::6810:85e5", "8.8.8.8"]))
def test_public_addresses_are_not_private(address):
    assert not is_private(address)
