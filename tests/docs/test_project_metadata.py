"""One supported Python range, stated the same way wherever a user reads it (pyproject's requires-python and
classifiers, README.md, a deploy bundle's README), project URLs that point at files the project has, and a
changelog."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not (ROOT / "pyproject.toml").is_file(), reason="needs rillet's checkout")


def pyproject() -> str:
    return (ROOT / "pyproject.toml").read_text()


def supported_range() -> tuple[str, str]:
    """(oldest, newest): requires-python's floor and the newest version classifier, which must run from the
    floor up without a gap."""
    floor = re.search(r'^requires-python = ">=(3\.\d+)"$', pyproject(), re.MULTILINE)
    assert floor, 'requires-python must read ">=3.N"'
    classifiers = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', pyproject())
    assert classifiers and classifiers[0] == floor.group(1)
    minors = [int(v.split(".")[1]) for v in classifiers]
    assert minors == list(range(minors[0], minors[-1] + 1)), f"classifiers skip a version: {classifiers}"
    return classifiers[0], classifiers[-1]


def test_the_python_range_is_stated_once_and_the_same_everywhere():
    oldest, newest = supported_range()
    stated = f"CPython {oldest} to {newest}"
    assert stated in (ROOT / "README.md").read_text()
    from rillet.targets.bundle import README

    assert stated in README
    others = [line for line in (ROOT / "README.md").read_text().splitlines()
              if re.search(r"Python >=? ?3\.\d+|CPython >= ?3\.\d+", line)]
    assert others == [], f"README states the range another way: {others}"


def test_ci_tests_both_ends_of_the_range():
    oldest, newest = supported_range()
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(rf"for version in {re.escape(oldest)} {re.escape(newest)}; do", ci)


def test_project_urls_name_files_the_project_has():
    urls = dict(re.findall(r'^(\w+) = "([^"]+)"$', pyproject().split("[project.urls]")[1].split("\n\n")[0],
                           re.MULTILINE))
    assert set(urls) == {"Documentation", "Source", "Changelog"}
    assert (ROOT / urls["Changelog"]).is_file() and (ROOT / urls["Source"]).is_dir()
    assert urls["Documentation"] == "docs/api/index.html"  # what tools/build_docs.py writes
    assert "docs/api/" in (ROOT / ".gitignore").read_text().splitlines()


def test_the_changelog_names_the_issues_that_landed():
    text = (ROOT / "CHANGELOG.md").read_text()
    for issue in (2, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16, 25, 27):
        assert f"(issue {issue})" in text, f"CHANGELOG.md says nothing of issue {issue}"
    assert "DESIGN.md" not in pyproject()
