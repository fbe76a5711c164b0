package io.cachegate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.cachegate.config.ExactStore;
import io.cachegate.config.Policy;
import io.cachegate.config.PolicyLoader;
import io.cachegate.config.SemanticStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * docker-compose.yml and the Kubernetes bases against what the gateway serves and reads: the policies
 * load, probes ask the admin port's /health and /ready, the policy is mounted where the image's
 * entrypoint reads it, the grace period outlasts the drain. The bases are rendered with
 * {@code kubectl kustomize}, as CI does.
 */
class DeployFilesTest {

    private final ImageRecipe image = ImageRecipe.read();

    @Test
    void compose_policyLoadsWithTheGatewaysEnvironment_andMatchesTheServices() throws Exception {
        Map<String, Object> compose = yaml(Files.readString(image.root.resolve("docker-compose.yml")));
        Map<String, Object> services = map(compose.get("services"));
        Map<String, Object> gateway = map(services.get("gateway"));
        Map<String, String> env = strings(map(gateway.get("environment")));
        // Compose substitutes ${VAR:-default} in the file itself; with nothing set, the defaults.
        env.replaceAll((name, value) -> value.replaceAll("\\$\\{[A-Z_]+:-([^}]*)}", "$1"));
        assertThat(list(gateway.get("volumes"))).contains(
                "./deploy/compose/policy.yaml:" + image.env("CACHEGATE_POLICY") + ":ro");

        Policy policy = PolicyLoader.withEnvironment(env::get).load(image.root.resolve("deploy/compose/policy.yaml"));

        assertThat(list(gateway.get("ports"))).containsExactlyInAnyOrder(
                policy.server().port() + ":" + policy.server().port(),
                policy.server().adminPort() + ":" + policy.server().adminPort());
        assertThat(policy.server().adminHost()).as("published admin port: listen beyond loopback").isEqualTo("0.0.0.0");
        assertThat(policy.admission().enabled()).isTrue();
        assertThat(policy.cache().exact().store()).isEqualTo(ExactStore.TIERED);
        assertThat(policy.cache().exact().redisUri()).isEqualTo("redis://redis:6379");
        assertThat(services).containsKeys("redis", "qdrant", "simulator", "vllm");
        assertThat(policy.cache().semantic().store()).isEqualTo(SemanticStore.QDRANT);
        assertThat(policy.cache().semantic().qdrant().host()).isEqualTo("qdrant");
        assertThat(policy.backends().get(0).urls().get(0).toString()).isEqualTo("http://simulator:8000");
        List<Object> simulator = list(map(services.get("simulator")).get("command"));
        assertThat(simulator).containsSubsequence("simulate-backend", "--port", "8000")
                .containsSubsequence("--host", "0.0.0.0");
        assertThat(map(map(services.get("simulator")).get("environment")))
                .as("the simulator's healthcheck.sh asks its own port").containsEntry("CACHEGATE_ADMIN_PORT", "8000");
        String model = (String) simulator.get(simulator.indexOf("--models") + 1);
        assertThat(list(map(services.get("vllm")).get("command"))).as("vLLM serves the simulator's model")
                .containsSubsequence("--model", model);
        for (String dependency : List.of("redis", "qdrant", "simulator")) {
            assertThat(map(map(gateway.get("depends_on")).get(dependency)))
                    .containsEntry("condition", "service_healthy");
            assertThat(map(services.get(dependency))).containsKey("healthcheck");
        }
    }

    @Test
    void kubernetesGateway_probesMountsAndGraceAgreeWithThePolicy() throws Exception {
        List<Map<String, Object>> objects = kustomize("gateway");
        Map<String, Object> deployment = only(objects, "Deployment");
        Map<String, Object> container = checkGatewayPod(objects, deployment);
        Policy policy = policy(objects, container);

        Map<String, Object> service = only(objects, "Service");
        Map<String, Object> pod = map(map(map(deployment.get("spec")).get("template")).get("metadata"));
        assertThat(map(pod.get("labels"))).containsAllEntriesOf(map(map(service.get("spec")).get("selector")));
        assertThat(port(container, (String) map(list(map(service.get("spec")).get("ports")).get(0)).get("targetPort")))
                .isEqualTo(policy.server().port());
        assertThat(policy.server().host()).isEqualTo("0.0.0.0");
        Map<String, Object> hpa = only(objects, "HorizontalPodAutoscaler");
        assertThat(map(map(hpa.get("spec")).get("scaleTargetRef")))
                .containsEntry("kind", "Deployment").containsEntry("name", map(deployment.get("metadata")).get("name"));
        Map<String, Object> pdb = only(objects, "PodDisruptionBudget");
        assertThat(map(pod.get("labels")))
                .containsAllEntriesOf(map(map(map(pdb.get("spec")).get("selector")).get("matchLabels")));
    }

    @Test
    void kubernetesSidecar_appTalksToTheGatewayOnLoopback_probesMountsAndGraceAgree() throws Exception {
        List<Map<String, Object>> objects = kustomize("sidecar");
        Map<String, Object> deployment = only(objects, "Deployment");
        Map<String, Object> container = checkGatewayPod(objects, deployment);
        Policy policy = policy(objects, container);

        Map<String, Object> app = containers(deployment).stream().filter(c -> c.get("name").equals("app"))
                .findFirst().orElseThrow();
        assertThat(env(app)).containsEntry("OPENAI_BASE_URL", "http://127.0.0.1:" + policy.server().port() + "/v1");
        assertThat(policy.cache().exact().redisUri()).isEqualTo("redis://redis:6379");
        assertThat(policy.cache().semantic().qdrant().host()).isEqualTo("qdrant");
    }

    /** What both bases share: the gateway container's probes, policy mount, volumes, security, grace. */
    private Map<String, Object> checkGatewayPod(List<Map<String, Object>> objects, Map<String, Object> deployment) {
        Map<String, Object> podSpec = map(map(map(deployment.get("spec")).get("template")).get("spec"));
        Map<String, Object> container = containers(deployment).stream()
                .filter(c -> c.get("name").equals("cachegate")).findFirst().orElseThrow();
        Policy policy = policy(objects, container);
        int admin = policy.server().adminPort();

        assertThat(container.get("args")).as("no args: the entrypoint serves the mounted policy").isNull();
        assertThat(container.get("command")).as("the image's ENTRYPOINT runs").isNull();
        Map<String, Object> readiness = map(map(container.get("readinessProbe")).get("httpGet"));
        Map<String, Object> liveness = map(map(container.get("livenessProbe")).get("httpGet"));
        assertThat(readiness.get("path")).isEqualTo("/ready");
        assertThat(liveness.get("path")).isEqualTo("/health");
        assertThat(List.of(readiness.get("port"), liveness.get("port"))).allSatisfy(p -> assertThat(p).isEqualTo(admin));
        assertThat(port(container, "admin")).isEqualTo(admin);
        assertThat(policy.server().adminHost()).as("probes come from the kubelet, not loopback").isEqualTo("0.0.0.0");

        // The policy mount: the ConfigMap's policy.yaml must be the file the entrypoint reads.
        Map<String, String> mounts = new HashMap<>(); // volume name -> mount path
        for (Object m : list(container.get("volumeMounts"))) {
            mounts.put((String) map(m).get("name"), (String) map(m).get("mountPath"));
        }
        Map<String, Map<String, Object>> volumes = new HashMap<>();
        for (Object v : list(podSpec.get("volumes"))) {
            volumes.put((String) map(v).get("name"), map(v));
        }
        String policyVolume = volumes.entrySet().stream().filter(v -> v.getValue().containsKey("configMap"))
                .map(Map.Entry::getKey).findFirst().orElseThrow();
        assertThat(mounts.get(policyVolume) + "/policy.yaml").isEqualTo(image.env("CACHEGATE_POLICY"));

        // Read-only root: what the gateway writes lives on emptyDirs.
        Map<String, Object> security = map(container.get("securityContext"));
        assertThat(security).containsEntry("readOnlyRootFilesystem", true).containsEntry("allowPrivilegeEscalation", false);
        assertThat(map(podSpec.get("securityContext"))).containsEntry("runAsNonRoot", true);
        String indexPath = Path.of(image.workdir).resolve(policy.cache().semantic().path()).normalize().toString();
        List<String> emptyDirs = mounts.entrySet().stream().filter(m -> volumes.get(m.getKey()).containsKey("emptyDir"))
                .map(Map.Entry::getValue).toList();
        assertThat(emptyDirs).contains(indexPath, image.env("CACHEGATE_NATIVE_DIR"), "/tmp");

        Map<String, Object> resources = map(container.get("resources"));
        assertThat(map(resources.get("requests"))).containsKeys("cpu", "memory");
        assertThat(map(resources.get("limits"))).containsKeys("memory");

        List<Object> preStop = list(map(map(map(container.get("lifecycle")).get("preStop")).get("exec")).get("command"));
        assertThat(preStop.get(0)).isEqualTo("sleep");
        long preStopSeconds = Long.parseLong((String) preStop.get(1));
        long grace = ((Number) podSpec.get("terminationGracePeriodSeconds")).longValue();
        assertThat(grace).as("terminationGracePeriodSeconds against preStop %ss + shutdown_grace %s",
                preStopSeconds, policy.server().shutdownGrace())
                .isGreaterThan(preStopSeconds + policy.server().shutdownGrace().toSeconds());
        return container;
    }

    /** The ConfigMap's policy, loaded with the container's environment as the gateway would. */
    private static Policy policy(List<Map<String, Object>> objects, Map<String, Object> container) {
        Map<String, Object> configMap = only(objects, "ConfigMap");
        String yaml = (String) map(configMap.get("data")).get("policy.yaml");
        assertThat(yaml).as("the ConfigMap's policy.yaml").isNotNull();
        Map<String, String> env = env(container);
        try {
            return PolicyLoader.withEnvironment(env::get).parse(yaml, "ConfigMap " + map(configMap.get("metadata")).get("name"));
        } catch (io.cachegate.config.PolicyException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    private List<Map<String, Object>> kustomize(String base) throws IOException, InterruptedException {
        Path dir = image.root.resolve("deploy/kubernetes").resolve(base);
        Process process;
        try {
            process = new ProcessBuilder("kubectl", "kustomize", dir.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError("kubectl is needed to render " + dir + " (install it; CI's .ci/run does): " + e);
        }
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("kubectl kustomize %s:%n%s", dir, out).isZero();
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object document : new Yaml().loadAll(out)) {
            objects.add(map(document));
        }
        return objects;
    }

    private static Map<String, Object> only(List<Map<String, Object>> objects, String kind) {
        List<Map<String, Object>> found = objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
        assertThat(found).as("rendered objects of kind %s", kind).hasSize(1);
        return found.get(0);
    }

    private static List<Map<String, Object>> containers(Map<String, Object> deployment) {
        return list(map(map(map(deployment.get("spec")).get("template")).get("spec")).get("containers"))
                .stream().map(DeployFilesTest::map).toList();
    }

    private static int port(Map<String, Object> container, String name) {
        return list(container.get("ports")).stream().map(DeployFilesTest::map).filter(p -> name.equals(p.get("name")))
                .map(p -> ((Number) p.get("containerPort")).intValue()).findFirst()
                .orElseThrow(() -> new AssertionError("no container port named " + name));
    }

    private static Map<String, String> env(Map<String, Object> container) {
        Map<String, String> env = new HashMap<>();
        for (Object e : container.get("env") == null ? List.of() : list(container.get("env"))) {
            env.put((String) map(e).get("name"), (String) map(e).get("value"));
        }
        return env;
    }

    private static Map<String, Object> yaml(String text) {
        return map(new Yaml().load(text));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        assertThat(o).isInstanceOf(Map.class);
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        assertThat(o).isInstanceOf(List.class);
        return (List<Object>) o;
    }

    private static Map<String, String> strings(Map<String, Object> map) {
        Map<String, String> out = new HashMap<>();
        map.forEach((k, v) -> out.put(k, String.valueOf(v)));
        return out;
    }
}
