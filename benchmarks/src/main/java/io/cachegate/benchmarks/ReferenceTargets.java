package io.cachegate.benchmarks;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Starts what {@code bench compare} measures Cachegate against: nginx's proxy_cache, plain proxy and constant sites,
 * and the peer gateways Portkey and LiteLLM, each in front of the run's simulator and each only where it installs;
 * a reference that cannot run leaves a note saying why instead of a target.
 */
final class ReferenceTargets {

    private final List<String> skip;
    private final Progress progress;
    private final BenchChildren children;
    private final ChildSimulator sim;
    private final Map<String, String> notes;

    ReferenceTargets(List<String> skip, Progress progress, BenchChildren children, ChildSimulator sim,
                     Map<String, String> notes) {
        this.skip = skip;
        this.progress = progress;
        this.children = children;
        this.sim = sim;
        this.notes = notes;
    }

    /** One nginx with the proxy_cache, plain proxy and constant sites, installed with apt-get when missing. */
    List<CompareTarget> nginx(String nginxBinary, byte[] answer) throws Exception {
        Map<String, NginxReference.Kind> sites = new LinkedHashMap<>();
        sites.put(CompareTable.NGINX_CACHE, NginxReference.Kind.CACHE);
        sites.put(CompareTable.NGINX_PROXY, NginxReference.Kind.PROXY);
        sites.put(CompareTable.CEILING, NginxReference.Kind.CONSTANT);
        sites.keySet().removeAll(skip);
        if (sites.isEmpty()) {
            return List.of();
        }
        Optional<String> binary = NginxReference.findOrInstall(nginxBinary, progress);
        if (binary.isEmpty()) {
            notes.put("nginx", "skipped: not installed and apt-get could not install it");
            return List.of();
        }
        Map<String, NginxReference.Site> config = new LinkedHashMap<>();
        for (Map.Entry<String, NginxReference.Kind> site : sites.entrySet()) {
            config.put(site.getKey(), new NginxReference.Site(site.getValue(), LocalProcesses.freePort()));
        }
        ProcessHandle nginx = NginxReference.start(binary.get(), children, sim.port(), List.copyOf(config.values()),
                answer).toHandle();
        List<CompareTarget> out = new ArrayList<>();
        config.forEach((name, site) -> {
            CompareTarget.Kind kind = switch (site.kind()) {
                case CACHE -> CompareTarget.Kind.HIT;
                case PROXY -> CompareTarget.Kind.PROXY;
                case CONSTANT -> CompareTarget.Kind.CEILING;
            };
            out.add(new CompareTarget(name, kind, URI.create("http://127.0.0.1:" + site.port()), Map.of(),
                    site.kind() == NginxReference.Kind.CACHE ? "x-cache-status" : null, nginx));
        });
        notes.put("nginx", "nginx " + NginxReference.version(binary.get()) + ", worker_processes auto");
        return out;
    }

    /** Portkey and LiteLLM, each where it installs (else a note saying why not). */
    List<CompareTarget> peers() throws Exception {
        List<CompareTarget> out = new ArrayList<>();
        if (!skip.contains("portkey")) {
            Optional<Path> script = new PortkeyPeer(progress).install();
            if (script.isPresent()) {
                StartedServer portkey = PortkeyPeer.start(script.get(), children);
                out.add(new CompareTarget("portkey", CompareTarget.Kind.PROXY, portkey.uri(),
                        PortkeyPeer.headers(sim.uri()), null, portkey.process()));
                notes.put("portkey", PortkeyPeer.PACKAGE + "@" + PortkeyPeer.VERSION + " on node "
                        + PortkeyPeer.nodeVersion());
            } else {
                notes.put("portkey", "skipped: could not be installed (node/npm missing or npm install failed)");
            }
        }
        if (!skip.contains("litellm")) {
            Optional<String> installed = new LiteLlmPeer(progress).install();
            if (installed.isPresent()) {
                StartedServer litellm = LiteLlmPeer.start(installed.get(), sim.uri(), ChatRequests.MODEL, children);
                out.add(new CompareTarget("litellm", CompareTarget.Kind.PROXY, litellm.uri(),
                        Map.of("Authorization", "Bearer sk-bench"), null, litellm.process()));
                notes.put("litellm", installed.get());
            } else {
                notes.put("litellm", "skipped: could not be installed (pip could not fetch litellm[proxy])");
            }
        }
        return out;
    }
}
