"""The Kubernetes manifests (deploy/k8s/) are valid resources, checked without a cluster by
kubernetes-validate against the API schemas, strictly (an unknown or misspelt field fails), and they
say what deploy/README.md promises: health probes, the shared cookie secret, cookie affinity, CPU
autoscaling."""

from __future__ import annotations

from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from conftest import ROOT

K8S = ROOT / "deploy" / "k8s"
VERSIONS = ("1.30.0", "1.37.0")  # an older cluster still in support, and the newest schema shipped
FILES = sorted(K8S.glob("*.yaml"))


def documents(path: Path) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def resources() -> dict[str, dict]:
    """The app's resources by kind (the workers' own, in workers.yaml, are workers())."""
    return {doc["kind"]: doc for path in FILES if path.name != "workers.yaml" for doc in documents(path)}


def workers() -> dict[str, dict]:
    return {doc["kind"]: doc for doc in documents(K8S / "workers.yaml")}


def test_the_folder_holds_every_manifest():
    assert {p.name for p in FILES} == {
        "deployment.yaml",
        "service.yaml",
        "ingress.yaml",
        "hpa.yaml",
        "secret.example.yaml",
        "workers.yaml",
    }


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_each_manifest_validates(path, version):
    for doc in documents(path):
        kubernetes_validate.validate(doc, version, strict=True)


def test_the_validator_catches_a_mistake():
    deployment = resources()["Deployment"]
    broken = yaml.safe_load(yaml.safe_dump(deployment))
    broken["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["paht"] = "/"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, VERSIONS[-1], strict=True)


def test_the_deployment_probes_health_and_reads_the_secret():
    found = resources()
    pod = found["Deployment"]["spec"]["template"]
    container = pod["spec"]["containers"][0]
    assert container["ports"][0]["containerPort"] == 8501
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert container[probe]["httpGet"] == {"path": "/_stcore/health", "port": "http"}
    assert {"cpu", "memory"} <= set(container["resources"]["requests"]) and container["resources"]["limits"]
    env = {e["name"]: e for e in container["env"]}
    ref = env["STREAMLIT_SERVER_COOKIE_SECRET"]["valueFrom"]["secretKeyRef"]
    secret = found["Secret"]
    assert ref["name"] == secret["metadata"]["name"] and ref["key"] in secret["stringData"]
    assert env["ATTENTION_LAB_CACHE"]["value"] in [m["mountPath"] for m in container["volumeMounts"]]
    labels = pod["metadata"]["labels"]
    assert found["Service"]["spec"]["selector"].items() <= labels.items()


def test_the_ingress_pins_a_browser_to_its_pod_and_keeps_websockets_open():
    ingress = resources()["Ingress"]
    notes = ingress["metadata"]["annotations"]
    assert notes["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    assert int(notes["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == resources()["Service"]["metadata"]["name"]


def test_the_autoscaler_scales_the_deployment_on_cpu():
    hpa = resources()["HorizontalPodAutoscaler"]
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"]["name"] == resources()["Deployment"]["metadata"]["name"]
    assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"


# What the image is built from (../Dockerfile): the folders and files of the repository that only develop,
# test, measure or deploy the app; everything else the app reads at run time and the image must hold.
DEV_ONLY = {
    ".ci",
    ".dockerignore",
    ".gitignore",
    "Dockerfile",
    "README.md",
    "benchmarks",
    "compose.yaml",
    "deploy",
    "docs",
    "harness",
    "pyproject.toml",
    "pytest.ini",
    "requirements-dev.txt",
    "tests",
}


def test_the_image_holds_everything_the_app_reads_and_compiles_its_modules():
    """The Dockerfile copies every tracked top-level file and folder that is not DEV_ONLY (the shipped lessons
    in lessons/ were missing: a lecturer's room in a container had none), and compiles every copied one that
    holds Python when the image is built (with PYTHONDONTWRITEBYTECODE each replica's start compiled them)."""
    import subprocess

    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True).stdout
    needed = {line.split("/", 1)[0] for line in tracked.splitlines()} - DEV_ONLY
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    copied = {source.split("/", 1)[0] for line in lines if line.startswith("COPY ") for source in line.split()[1:-1]}
    assert copied == needed, copied ^ needed
    compiled = {word for line in lines if "compileall" in line for word in line.split()[line.split().index("-q") + 1 :]}
    python = {name for name in needed if name.endswith(".py") or any((ROOT / name).rglob("*.py"))}
    assert python and compiled == python, (compiled, python)


def env_of(container: dict) -> dict:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


def test_the_workers_are_a_statefulset_of_their_own_with_stable_ids_and_the_apps_database():
    """The class experiment's queue workers (issue 52) scale apart from the app: a StatefulSet (stable pod names,
    so a restarted pod's workers recover the runs they had begun) running services.jobrunner, on the rooms'
    PostgreSQL from the app's secret; the app starts no workers of its own there."""
    found = workers()
    sts, service = found["StatefulSet"], found["Service"]
    assert sts["spec"]["serviceName"] == service["metadata"]["name"] and service["spec"]["clusterIP"] == "None"
    (container,) = sts["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["python", "-m", "services.jobrunner"]
    env = env_of(container)
    assert env["ATTENTION_LAB_REPLICA"] == {"fieldRef": {"fieldPath": "metadata.name"}}
    assert env["DATABASE_URL"] == {"secretKeyRef": {"name": "attention-lab", "key": "database-url"}}
    (app,) = resources()["Deployment"]["spec"]["template"]["spec"]["containers"]
    assert env_of(app)["ATTENTION_LAB_WORKERS"] == "external" and env_of(app)["DATABASE_URL"] == env["DATABASE_URL"]
    assert "database-url" in resources()["Secret"]["stringData"]
