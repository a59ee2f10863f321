"""``schedlab.import_file`` / ``schedlab.import_str``: SimSo XML and CSV task sets in Python,
the same reader and messages as ``schedlab import``."""

from pathlib import Path

import pytest

import schedlab

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples" / "simso"


def test_a_simso_example_imports_to_its_own_task_file():
    imported = schedlab.import_file(EXAMPLES / "fp-4tasks.xml")
    assert isinstance(imported, schedlab.Imported)
    assert imported.source == "simso"
    assert imported.policy == "gfp"
    assert imported.taskset == schedlab.load(EXAMPLES / "fp-4tasks.toml")
    assert imported.taskset.cpus == 2
    assert [t.priority for t in imported.taskset] == [3, 0, 1, 2]
    assert imported.simulate_args == ["--policy", "gfp", "--priorities", "given", "--duration", "400ms"]
    assert any("--duration 400ms" in line for line in imported.unmapped)
    assert repr(imported) == 'Imported(source="simso", policy="gfp", tasks=4, unmapped=2)'


def test_the_imported_set_simulates_like_the_own_file():
    imported = schedlab.import_file(str(EXAMPLES / "edf-3tasks.xml"), from_="simso")
    own = schedlab.load(EXAMPLES / "edf-3tasks.toml")
    a = schedlab.simulate(imported.taskset, policy=imported.policy, duration="420ms")
    b = schedlab.simulate(own, policy="gedf", duration="420ms")
    for key in ("jobs", "deadline_misses", "preemptions", "migrations"):
        assert a[key] == b[key], key
    assert a["jobs"] == 116


def test_import_str_reads_csv_and_sniffs_xml():
    imported = schedlab.import_str("name,cost_ms,period_ms\na,1,4\nb,2,5\n", "csv")
    assert imported.policy is None
    assert imported.taskset.cpus is None
    assert list(imported.taskset.wcet) == [1_000_000, 2_000_000]
    assert imported.simulate_args == ["--policy", "P"]
    xml = (EXAMPLES / "edf-3tasks.xml").read_text()
    assert schedlab.import_str(xml).policy == "gedf"


def test_bad_input_raises_schedlab_error_with_the_clear_message():
    with pytest.raises(schedlab.Error, match=r"unknown SimSo scheduler `simso.schedulers.Foo`; schedulers that map: EDF, "):
        schedlab.import_file(ROOT / "tests" / "corpus" / "simso" / "bad" / "unknown-scheduler.xml")
    with pytest.raises(schedlab.Error, match=r"CSV: line 3, column `period`"):
        schedlab.import_str("cost,period\n1,10\n2,abc\n", from_="csv")
    with pytest.raises(schedlab.Error, match=r"unknown import format `yaml`"):
        schedlab.import_str("x", from_="yaml")
    with pytest.raises(ValueError):
        schedlab.import_file(ROOT / "nonexistent.xml")


def test_an_rt_app_export_imports_back():
    # schedlab.export → rt-app JSON → schedlab.import_str: the same tasks, policy pedf.
    ts = schedlab.TaskSet(
        [schedlab.Task(wcet="2ms", period="10ms", name="a"),
         schedlab.Task(wcet="3ms", period="15ms", deadline="12ms", name="b")],
        cpus=2,
    )
    text = schedlab.export(ts, 2, policy="pedf", to="rt-app")
    back = schedlab.import_str(text, from_="rt-app")
    assert back.source == "rt-app"
    assert back.policy == "pedf"
    assert [(t.name, t.wcet, t.period, t.deadline) for t in back.taskset] == [
        ("a", 2_000_000, 10_000_000, 10_000_000),
        ("b", 3_000_000, 15_000_000, 12_000_000),
    ]
    assert any("reservation" in line for line in back.unmapped)
