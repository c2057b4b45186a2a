from judgekit.diffs import files_touched, strip_paths

RENAME = """diff --git a/src/old_name.py b/src/new_name.py
similarity index 90%
rename from src/old_name.py
rename to src/new_name.py
index 1111111..2222222 100644
--- a/src/old_name.py
+++ b/src/new_name.py
@@ -1,3 +1,3 @@
-x = 1
+x = 2
"""

PURE_RENAME = """diff --git a/a.txt b/b.txt
similarity index 100%
rename from a.txt
rename to b.txt
"""

DELETE = """diff --git a/gone.py b/gone.py
deleted file mode 100644
index 3333333..0000000
--- a/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
"""

NEW = """diff --git a/pkg/new.py b/pkg/new.py
new file mode 100644
index 0000000..4444444
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1 @@
+print("hi")
"""

BINARY = """diff --git a/img/logo.png b/img/logo.png
index 5555555..6666666 100644
Binary files a/img/logo.png and b/img/logo.png differ
"""

MODE_ONLY = """diff --git a/scripts/run.sh b/scripts/run.sh
old mode 100644
new mode 100755
"""

QUOTED = """diff --git "a/docs/caf\\303\\251 menu.md" "b/docs/caf\\303\\251 menu.md"
index 7777777..8888888 100644
--- "a/docs/caf\\303\\251 menu.md"
+++ "b/docs/caf\\303\\251 menu.md"
@@ -1 +1 @@
-old
+new
"""

SPACES = """diff --git a/my dir/my file.py b/my dir/my file.py
index 1..2 100644
--- a/my dir/my file.py
+++ b/my dir/my file.py
@@ -1 +1 @@
-a
+b
"""

INFRA = """diff --git a/.bobbin/index.db b/.bobbin/index.db
new file mode 100644
Binary files /dev/null and b/.bobbin/index.db differ
diff --git a/.claude/settings.json b/.claude/settings.json
new file mode 100644
--- /dev/null
+++ b/.claude/settings.json
@@ -0,0 +1 @@
+{}
diff --git a/src/app.py b/src/app.py
--- a/src/app.py
+++ b/src/app.py
@@ -1 +1 @@
-a
+b
"""

PLAIN = """--- a/one.py\t2024-01-01
+++ b/one.py\t2024-01-02
@@ -1 +1 @@
-a
+b
--- a/two.py
+++ b/two.py
@@ -1 +1 @@
-c
+d
"""


def test_rename_counts_old_and_new_path():
    assert files_touched(RENAME) == ["src/new_name.py", "src/old_name.py"]


def test_pure_rename_without_hunks():
    assert files_touched(PURE_RENAME) == ["a.txt", "b.txt"]


def test_deletion_counts_deleted_path():
    assert files_touched(DELETE) == ["gone.py"]


def test_new_file():
    assert files_touched(NEW) == ["pkg/new.py"]


def test_binary_file():
    assert files_touched(BINARY) == ["img/logo.png"]


def test_mode_only_change():
    assert files_touched(MODE_ONLY) == ["scripts/run.sh"]


def test_quoted_non_ascii_path():
    assert files_touched(QUOTED) == ["docs/café menu.md"]


def test_unquoted_path_with_spaces():
    assert files_touched(SPACES) == ["my dir/my file.py"]


def test_infrastructure_paths_excluded_by_default():
    assert files_touched(INFRA) == ["src/app.py"]


def test_exclusions_are_configurable():
    assert files_touched(INFRA, exclude=()) == [".bobbin/index.db", ".claude/settings.json",
                                                "src/app.py"]
    assert files_touched(INFRA, exclude=("src/",)) == [".bobbin/index.db",
                                                       ".claude/settings.json"]


def test_plain_unified_diff_without_git_headers():
    assert files_touched(PLAIN) == ["one.py", "two.py"]


def test_empty_and_missing_diff():
    assert files_touched("") == []
    assert files_touched(None) == []


def test_several_files_in_one_diff():
    assert files_touched(NEW + DELETE + BINARY) == ["gone.py", "img/logo.png", "pkg/new.py"]


def test_strip_paths_removes_infra_sections_only():
    stripped = strip_paths(INFRA)
    assert ".bobbin" not in stripped and ".claude" not in stripped
    assert files_touched(stripped) == ["src/app.py"]


def test_a_diff_naming_no_excluded_prefix_is_kept_whole_as_the_full_parse_would(
        monkeypatch) -> None:
    """The shortcut (no excluded prefix anywhere in the text) gives what parsing every
    section gives, on every diff of the bundled runs and on edge cases."""
    import json
    from pathlib import Path

    import judgekit.diffs as diffs

    texts = [RENAME, PURE_RENAME, DELETE, RENAME.rstrip("\n"), "diff --git a/x b/x\n",
             'diff --git "a/sp ace/\\303\\251.py" "b/sp ace/\\303\\251.py"\n--- "a/sp ace/'
             '\\303\\251.py"\n+++ "b/sp ace/\\303\\251.py"\n@@ -1 +1 @@\n-a\n+b\n',
             "preamble line\n" + DELETE]
    root = Path(__file__).resolve().parents[2] / "examples" / "bobbin"
    for path in sorted(root.rglob("*.json")):
        data = json.loads(path.read_text())
        for key in ("agent_diff", "diff", "ground_truth_diff", "gold_patch"):
            if isinstance(data, dict) and isinstance(data.get(key), str):
                texts.append(data[key])
    assert len(texts) > 10
    excludes = [diffs.DEFAULT_INFRA_PATHS, ("src",), ("src/old_name.py",), ("gone.py/",),
                ("sp ace",), ()]
    fast = {(t, ex): strip_paths(t, ex) for t in texts for ex in excludes}
    monkeypatch.setattr(diffs, "_may_name", lambda diff, exclude: True)  # always parse
    for (t, ex), got in fast.items():
        assert got == strip_paths(t, ex), (ex, t[:200])
