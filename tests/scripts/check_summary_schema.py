"""check_summary_schema.py: --summary-json output from real runs validated
against docs/summary.schema.json (run by tests/scripts/check_summary_schema.sh):
a tutorial, pldsim-perf, pldsim-py, PLD_SUMMARY=json on stdout, and a
platform path full of characters JSON must escape."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("SKIP: python3-jsonschema is not installed (apt-get install python3-jsonschema, or ./bootstrap)")
    sys.exit(77)

B = os.environ.get("PLDSIM_BUILDDIR", ".")
S = os.environ.get("PLDSIM_SRCDIR", ".")
with open(os.path.join(S, "docs", "summary.schema.json"), encoding="utf-8") as f:
    schema = json.load(f)
V = jsonschema.Draft202012Validator
V.check_schema(schema)
failed = 0
passed = 0


def check(name, doc):
    global failed, passed
    errs = sorted(V(schema).iter_errors(doc), key=str)
    if errs:
        failed += 1
        print(f"FAIL {name}: {errs[0].message} at {list(errs[0].absolute_path)}")
    else:
        passed += 1
        print(f"ok {name}")


def run(name, argv, env=None, stdout_json=False):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "s.json")
        if not stdout_json:
            argv = argv + ["--summary-json", out]
        p = subprocess.run(argv, capture_output=True, env=env, cwd=B)
        if p.returncode != 0:
            global failed
            failed += 1
            print(f"FAIL {name}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
            return None
        if stdout_json:
            text = p.stdout.decode("utf-8")
            # the JSON object first, then the one-line summary and "OK"
            doc, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
        else:
            with open(out, "rb") as f:
                doc = json.loads(f.read().decode("utf-8"))
        check(name, doc)
        return doc


run("tutorial 10 at P=4", [os.path.join(B, "tutorials", "10_allreduce_ring"), "-d", "0-3"])
run("tutorial 05", [os.path.join(B, "tutorials", "05_remote_load_store")])
run("tutorial 10 --topology", [os.path.join(B, "tutorials", "10_allreduce_ring"), "-d", "0-3",
                                "--topology", "ring:4"])
env = dict(os.environ, PLD_SUMMARY="json")
run("PLD_SUMMARY=json on stdout", [os.path.join(B, "tutorials", "10_allreduce_ring"), "-d", "0-3"],
    env=env, stdout_json=True)
run("pldsim-perf", [os.path.join(B, "tools", "pldsim-perf"), "all_reduce_perf", "-n", "2", "-b", "1K", "-e", "4K", "--devices", "0-3"])
# pldsim-py cannot run in a sanitizer build (check_python.sh says why)
if (
    os.environ.get("PLDSIM_HAVE_PYTHON") == "yes"
    and not os.environ.get("PLDSIM_SAN_FLAGS")
    and os.path.exists(os.path.join(B, "python", "pldsim-py"))
):
    py = os.path.join(B, "python", "pldsim-py")
    step = os.path.join(S, "tutorials", "05_remote_load_store.py")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "s.json")
        p = subprocess.run([py, "--summary-json", out, step], capture_output=True, cwd=B)
        if p.returncode or not os.path.exists(out):
            failed += 1
            print(f"FAIL pldsim-py --summary-json: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
        else:
            with open(out, encoding="utf-8") as f:
                check("pldsim-py --summary-json", json.load(f))
    run("pldsim-py --summary=json", [py, "--summary=json", step], stdout_json=True)

# a platform file whose path JSON has to escape, with bytes that are not UTF-8
with tempfile.TemporaryDirectory() as d:
    hostile = os.path.join(d.encode(), b'q"b\\s&a<g\nn\xc3\xa9l\xe9').decode("utf-8", "surrogateescape")
    os.mkdir(hostile)
    plat = os.path.join(hostile, 'a2a3 "x".model')
    shutil.copy(os.path.join(S, "models", "a2a3.model"), plat)
    doc = run("hostile platform path", [os.path.join(B, "tutorials", "05_remote_load_store"), "-p", plat])
    if doc is not None and '"' not in doc["run"]["platform_option"]:
        failed += 1
        print("FAIL hostile platform path: the quote did not survive")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
