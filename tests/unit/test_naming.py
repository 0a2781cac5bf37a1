import re

from hypothesis import given
from hypothesis import strategies as st

from webmcp_sidecar.tools.naming import VALID, assign_names, plain_name


def test_readable_names():
    names = assign_names([("mail.163.com", "search_emails"), ("localhost:8080", "add")])
    assert names[("mail.163.com", "search_emails")] == "mail_163_com__search_emails"
    assert names[("localhost:8080", "add")] == "localhost_8080__add"


def test_dots_in_tool_names_become_underscores():
    assert plain_name("a.com", "search.emails") == "a_com__search_emails"


def test_collisions_keep_the_clean_name_and_hash_the_other():
    names = assign_names([("a.com", "x.y"), ("a.com", "x_y")])
    assert names[("a.com", "x_y")] == "a_com__x_y"
    other = names[("a.com", "x.y")]
    assert other != "a_com__x_y" and other.startswith("a_com__x_y_")
    assert len(set(names.values())) == 2


def test_long_names_are_cut_to_64_with_a_hash():
    site = "very-long-subdomain-name.example-of-a-long-domain.co.uk"
    a = assign_names([(site, "t" * 100 + "a"), (site, "t" * 100 + "b")])
    assert all(len(n) <= 64 and VALID.match(n) for n in a.values())
    assert len(set(a.values())) == 2


def test_deterministic_regardless_of_order():
    pairs = [("a.com", "x.y"), ("a.com", "x_y"), ("b.com", "z"), ("a.com", "x-y")]
    assert assign_names(pairs) == assign_names(list(reversed(pairs)))


tool_names = st.from_regex(re.compile(r"[A-Za-z0-9_.\-]{1,128}"), fullmatch=True)
sites = st.from_regex(re.compile(r"[a-z0-9.\-]{1,60}(:[0-9]{2,5})?"), fullmatch=True)


@given(st.lists(st.tuples(sites, tool_names), max_size=30))
def test_always_valid_and_collision_free(pairs):
    names = assign_names(pairs)
    assert len(set(names.values())) == len(set(pairs))
    assert all(VALID.match(n) for n in names.values())
