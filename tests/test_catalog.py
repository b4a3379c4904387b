import pytest

from rtbench.store import catalog
from rtbench.store.catalog import CatalogError


@pytest.fixture(scope="module")
def cat():
    return catalog.load()


def test_ids_unique_and_complete(cat):
    assert len(cat.ids) == len(set(cat.ids)) > 0
    for m in cat.metrics:
        for field in ("definition", "clock_start", "clock_stop", "title", "unit"):
            assert getattr(m, field).strip(), (m.id, field)
        assert m.service in cat.services


def test_every_service_has_metrics(cat):
    for service in cat.services:
        assert cat.by_service(service), service


def test_match_all_and_globs(cat):
    assert cat.match(None) == cat.ids
    assert cat.match("") == cat.ids
    sems = cat.match("sem.*")
    assert sems and all(i.startswith("sem.") for i in sems)
    assert cat.match("method.null, mutex.*") == ["method.null", "mutex.lock.uncontended",
                                                 "mutex.unlock.uncontended"]
    # Catalogue order, no duplicates when patterns overlap.
    assert cat.match("*.thread,sem.*") == [i for i in cat.ids
                                           if i.endswith(".thread") or i.startswith("sem.")]


def test_unknown_pattern_is_an_error(cat):
    with pytest.raises(CatalogError, match="no.such"):
        cat.match("method.null,no.such.*")


def test_broken_catalogue_is_rejected(tmp_path):
    bad = tmp_path / "c.toml"
    bad.write_text('[services]\norder=["A"]\n[[metric]]\nid="x"\nservice="A"\ntitle="t"\n'
                   'definition=""\nclock_start="a"\nclock_stop="b"\nunit="time"\n')
    with pytest.raises(CatalogError, match="definition"):
        catalog.load(bad)
    dup = tmp_path / "d.toml"
    entry = ('[[metric]]\nid="x"\nservice="A"\ntitle="t"\ndefinition="d"\n'
             'clock_start="a"\nclock_stop="b"\nunit="time"\n')
    dup.write_text('[services]\norder=["A"]\n' + entry + entry)
    with pytest.raises(CatalogError, match="duplicated"):
        catalog.load(dup)
