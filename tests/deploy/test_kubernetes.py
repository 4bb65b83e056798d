"""deploy/kubernetes/: every manifest valid against the Kubernetes schemas (offline, strict), and
the references between them, the image and the CLIs hold together."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import httpx2
import kubernetes_validate
import pytest
import yaml

from atlas_ls.cli import _build_parser
from atlas_ls.mcp.__main__ import build_parser
from atlas_ls.mcp.auth import ENV_TOKEN
from tests.deploy.conftest import DEPLOY, Pods, dockerfile_stages

MANIFESTS = DEPLOY / "kubernetes"
# The oldest release still maintained when this was written, and the newest the validator knows.
VERSIONS = ("1.31.0", kubernetes_validate.latest_version())


def load() -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """Every resource, by kind (each kind appears once here), and the NetworkPolicies by name."""
    found: dict[str, dict[str, Any]] = {}
    policies: dict[str, dict[str, Any]] = {}
    for path in sorted(MANIFESTS.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if document["kind"] == "NetworkPolicy":
                policies[document["metadata"]["name"]] = document
                continue
            assert document["kind"] not in found, f"two {document['kind']} resources"
            found[document["kind"]] = document
    return found, policies


RESOURCES, POLICIES = load()
DEPLOYMENT = RESOURCES["Deployment"]
POD = DEPLOYMENT["spec"]["template"]["spec"]
CONTAINER = POD["containers"][0]
CRONJOB = RESOURCES["CronJob"]
JOB_POD = CRONJOB["spec"]["jobTemplate"]["spec"]["template"]["spec"]


@pytest.mark.parametrize("version", VERSIONS)
def test_every_manifest_is_valid_against_the_kubernetes_schemas(version: str) -> None:
    assert set(RESOURCES) == {
        "PersistentVolumeClaim",
        "Deployment",
        "Service",
        "HorizontalPodAutoscaler",
        "CronJob",
    }
    assert POLICIES, "no NetworkPolicy"
    for resource in [*RESOURCES.values(), *POLICIES.values()]:
        kubernetes_validate.validate(resource, version, strict=True)


def test_the_validator_rejects_a_broken_manifest() -> None:
    broken = copy.deepcopy(DEPLOYMENT)
    broken["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, VERSIONS[-1], strict=True)


def test_kustomization_applies_every_manifest() -> None:
    kustomization = yaml.safe_load((MANIFESTS / "kustomization.yaml").read_text(encoding="utf-8"))
    on_disk = {p.name for p in MANIFESTS.glob("*.yaml")} - {"kustomization.yaml"}
    assert sorted(kustomization["resources"]) == sorted(on_disk)


def container_port(name_or_number: str | int) -> int:
    ports = {p["name"]: p["containerPort"] for p in CONTAINER["ports"]}
    return ports[name_or_number] if isinstance(name_or_number, str) else name_or_number


def test_the_server_command_is_accepted_and_matches_the_pod() -> None:
    assert CONTAINER["command"] == ["atlas-mcp"]
    args = build_parser("atlas-mcp", "all").parse_args(CONTAINER["args"])
    # Stateless: the Service sends each request to any pod, and any worker in it answers.
    assert (args.transport, args.stateless, args.host, args.allow_remote) == (
        "http",
        True,
        "0.0.0.0",
        True,
    )
    assert [p["containerPort"] for p in CONTAINER["ports"]] == [args.port]
    bundle_mount = next(m for m in CONTAINER["volumeMounts"] if m["name"] == "bundle")
    assert bundle_mount["readOnly"] is True
    assert args.bundle == [f"{bundle_mount['mountPath']}/current"]
    token = next(e for e in CONTAINER["env"] if e["name"] == ENV_TOKEN)
    assert token["valueFrom"]["secretKeyRef"] == {"name": "atlas-mcp-token", "key": "token"}


def test_probes_ask_paths_the_server_answers_on_the_container_port(pods: Pods) -> None:
    readiness, liveness = CONTAINER["readinessProbe"], CONTAINER["livenessProbe"]
    assert (readiness["httpGet"]["path"], liveness["httpGet"]["path"]) == ("/readyz", "/healthz")
    for probe in (readiness, liveness):
        assert container_port(probe["httpGet"]["port"]) == CONTAINER["ports"][0]["containerPort"]
        response = httpx2.get(pods.url(0, probe["httpGet"]["path"]), timeout=10)
        assert response.status_code == 200, response.text
    ready = httpx2.get(pods.url(0, "/readyz"), timeout=10).json()
    assert ready["status"] == "ready"


def test_pods_run_non_root_on_a_read_only_root_with_bounded_resources() -> None:
    user = next(i for i in dockerfile_stages()[-1] if i.keyword == "USER").args.split(":")[0]
    for pod in (POD, JOB_POD):
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["runAsUser"] == int(user)  # the image's own user
        for container in pod["containers"]:
            assert container["securityContext"]["readOnlyRootFilesystem"] is True
            assert container["securityContext"]["allowPrivilegeEscalation"] is False
            assert {"cpu", "memory"} <= set(container["resources"]["requests"])
            assert {"cpu", "memory"} <= set(container["resources"]["limits"])
            # The only writable place the image expects: the cache under /tmp.
            mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
            tmp = next(v for v in pod["volumes"] if v["name"] == mounts["/tmp"])
            assert "emptyDir" in tmp
    assert (
        CRONJOB["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["image"]
        == CONTAINER["image"]
    )


def test_service_selects_the_deployment_and_targets_its_port() -> None:
    service = RESOURCES["Service"]
    labels = DEPLOYMENT["spec"]["template"]["metadata"]["labels"]
    selector = service["spec"]["selector"]
    assert selector.items() <= labels.items()
    assert DEPLOYMENT["spec"]["selector"]["matchLabels"].items() <= labels.items()
    # The refresh job's pods share the app label but must never receive traffic.
    job_labels = CRONJOB["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["labels"]
    assert not selector.items() <= job_labels.items()
    (port,) = service["spec"]["ports"]
    assert container_port(port["targetPort"]) == CONTAINER["ports"][0]["containerPort"]


def test_autoscaler_scales_the_deployment_on_cpu() -> None:
    hpa = RESOURCES["HorizontalPodAutoscaler"]
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"], target["name"]) == (
        DEPLOYMENT["apiVersion"],
        "Deployment",
        DEPLOYMENT["metadata"]["name"],
    )
    (metric,) = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    assert "cpu" in CONTAINER["resources"]["requests"]  # utilisation is measured against it
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]


def test_the_refresh_job_downloads_into_the_claim_the_servers_read() -> None:
    claim = RESOURCES["PersistentVolumeClaim"]["metadata"]["name"]
    served = {v["name"]: v for v in POD["volumes"]}["bundle"]["persistentVolumeClaim"]
    written = {v["name"]: v for v in JOB_POD["volumes"]}["bundle"]["persistentVolumeClaim"]
    assert served["claimName"] == written["claimName"] == claim
    assert served["readOnly"] is True and not written.get("readOnly", False)
    assert "ReadWriteMany" in RESOURCES["PersistentVolumeClaim"]["spec"]["accessModes"]

    (container,) = JOB_POD["containers"]
    command = container["command"]
    assert command[:2] == ["atlas", "download"]
    args = _build_parser()[0].parse_args(command[1:])
    assert args.command == "download"
    mount = next(m for m in container["volumeMounts"] if m["name"] == "bundle")
    assert not mount.get("readOnly", False)
    # `atlas download --output X` flips X/current: the path every server pod serves.
    assert Path(args.output) == Path(mount["mountPath"])
    server_args = build_parser("atlas-mcp", "all").parse_args(CONTAINER["args"])
    assert server_args.bundle == [f"{args.output}/current"]
    assert CRONJOB["spec"]["concurrencyPolicy"] == "Forbid"


def selected(policy: dict[str, Any], labels: dict[str, str]) -> bool:
    return policy["spec"]["podSelector"]["matchLabels"].items() <= labels.items()


def test_network_policies_restrict_the_servers_and_the_refresh_job() -> None:
    server_labels = DEPLOYMENT["spec"]["template"]["metadata"]["labels"]
    job_labels = CRONJOB["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["labels"]
    (server,) = [p for p in POLICIES.values() if selected(p, server_labels)]
    (job,) = [p for p in POLICIES.values() if selected(p, job_labels)]
    assert server is not job
    for policy in (server, job):
        assert set(policy["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    # Servers: ingress to the MCP port only, from named sources (never everyone); no egress.
    (rule,) = server["spec"]["ingress"]
    assert rule["from"] and all(
        source.get("namespaceSelector", {}).get("matchLabels")
        or source.get("podSelector", {}).get("matchLabels")
        for source in rule["from"]
    ), rule
    assert [p["port"] for p in rule["ports"]] == [CONTAINER["ports"][0]["containerPort"]]
    assert server["spec"]["egress"] == []
    # The job: nothing comes in; out only DNS and HTTPS (the release downloads).
    assert job["spec"]["ingress"] == []
    allowed = {(p["protocol"], p["port"]) for rule in job["spec"]["egress"] for p in rule["ports"]}
    assert allowed == {("UDP", 53), ("TCP", 53), ("TCP", 443)}
