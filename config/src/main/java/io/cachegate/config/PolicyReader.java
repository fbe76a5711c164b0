package io.cachegate.config;

import java.io.StringReader;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Turns YAML text into a {@link Policy}: composes the node tree (which keeps line numbers, unlike a
 * Jackson tree), reads each section, and throws once with every problem found.
 */
final class PolicyReader {

    private PolicyReader() {
    }

    /** @param maxCodePoints the most characters the YAML scanner reads before it gives up */
    static Policy read(String yaml, String source, EnvSubstitution env, int maxCodePoints) throws PolicyException {
        return read(new PolicyTree(compose(yaml, source, maxCodePoints), env, Map.of()), source);
    }

    /** Reads a composed tree: a file's, or the next file's with the running restart-only values kept. */
    static Policy read(PolicyTree tree, String source) throws PolicyException {
        NodeReader reader = tree.reader(source);
        Fields fields = reader.fields(tree.root(), "", PolicyKeys.ROOT.names());
        if (fields == null) {
            throw new PolicyException(reader.problems());
        }
        ServerSettings server = ServerReader.read(fields);
        List<Backend> backends = BackendsReader.read(fields);
        // Classes before tenants, which name them. Problems are sorted by line, so the order of reading
        // shows only among problems on one line.
        Map<String, TrafficClass> classes = ClassesReader.read(fields);
        List<Tenant> tenants = TenantsReader.read(fields, classes);
        checkClientCertificates(reader, fields, server, tenants);
        CacheSettings cache = CacheReader.read(fields);
        List<Route> routes = new RoutesReader(fields, backends, tenants, classes).read();
        AdmissionPolicy admission = AdmissionReader.read(fields);
        TelemetrySettings telemetry = TelemetryReader.telemetry(fields);
        LogSettings log = TelemetryReader.log(fields);
        List<ModelPrice> prices = TelemetryReader.prices(fields);
        List<PolicyProblem> problems = reader.problems();
        if (!problems.isEmpty()) {
            throw new PolicyException(problems);
        }
        return new Policy(source, server, backends, tenants, classes, cache, routes, admission, telemetry, log, prices,
                tree);
    }

    /** Client certificates mapped to tenants are only ever seen when the proxy listener asks for them. */
    private static void checkClientCertificates(NodeReader reader, Fields root, ServerSettings server,
                                                List<Tenant> tenants) {
        boolean asked = server.tls().filter(tls -> tls.clientAuth() != ClientAuth.NONE).isPresent();
        for (int i = 0; i < tenants.size() && !asked; i++) {
            if (!tenants.get(i).clientCertificates().isEmpty()) {
                reader.problem(root.line(TenantKeys.SECTION.name()), "tenants[" + i + "].client_certificates",
                        "needs server.tls with client_auth: optional or require, else no client certificate is"
                                + " asked for");
                return;
            }
        }
    }

    /** The document's root node, or null for an empty document. */
    private static Node compose(String yaml, String source, int maxCodePoints) throws PolicyException {
        LoaderOptions options = new LoaderOptions();
        // Bounds stated here rather than left to the library's defaults: text read (a file is checked by size
        // first; this holds for text given directly), aliases expanded (a few lines of anchors can otherwise
        // stand for millions of nodes) and nesting.
        options.setCodePointLimit(maxCodePoints);
        options.setMaxAliasesForCollections(50);
        options.setNestingDepthLimit(50);
        options.setAllowRecursiveKeys(false);
        // Keys are checked by NodeReader, which can name the line of both occurrences.
        options.setAllowDuplicateKeys(true);
        options.setProcessComments(false);
        try {
            Composer composer = new Composer(new ParserImpl(new StreamReader(new StringReader(yaml)), options),
                    new Resolver(), options);
            return composer.getSingleNode();
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String message = e.getProblem() != null ? e.getProblem() : e.getContext();
            String context = e.getContext() != null && e.getProblem() != null ? " (" + e.getContext() + ")" : "";
            if (message != null && message.contains("another document")) {
                message = "a policy file holds one document; remove the second ---";
                context = "";
            }
            throw new PolicyException(new PolicyProblem(source, mark == null ? 0 : mark.getLine() + 1, "",
                    "invalid YAML: " + message + context));
        } catch (YAMLException e) {
            throw new PolicyException(new PolicyProblem(source, 0, "", "invalid YAML: " + e.getMessage()));
        }
    }
}
