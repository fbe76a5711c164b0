package io.cachegate.cli;

import io.cachegate.benchmarks.BenchCommand;
import io.cachegate.benchmarks.ChildLauncher;
import io.cachegate.cache.semantic.NativeLibraries;
import io.cachegate.cli.analyze.AnalyzeCommand;
import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code cachegate} command: one sub-command per job (serve, demo, simulate-backend, bench, validate). */
@Command(name = "cachegate", mixinStandardHelpOptions = true, version = "cachegate 0.1.0",
        description = "An inference caching reverse proxy for OpenAI-compatible model servers.",
        subcommands = {ServeCommand.class, DemoCommand.class, SimulateBackendCommand.class, BenchCommand.class,
                ValidateCommand.class, HashKeyCommand.class, EvalSemanticCommand.class, EvalGuardsCommand.class, FitDecisionCommand.class, FitAgreementCommand.class,
                AnalyzeCommand.class, TrainAotCommand.class,
                CommandLine.HelpCommand.class})
public final class CachegateCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        NettyDefaults.apply(System.getProperties()); // before any Netty class reads its properties
        NativeLibraries.prepare(); // before any command loads ONNX Runtime or a DJL tokenizer
        // Libraries that log through java.util.logging (the OpenTelemetry SDK's export failures) log as we do.
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
        System.exit(commandLine().execute(args));
    }

    /** The command tree, also used by the tests. */
    static CommandLine commandLine() {
        return new CommandLine(new CachegateCli(), new Factory());
    }

    /** Creates the sub-commands; {@code bench}'s scenarios start their simulators and gateways with this class. */
    private static final class Factory implements CommandLine.IFactory {

        @Override
        public <K> K create(Class<K> type) throws Exception {
            if (type == BenchCommand.class) {
                return type.cast(new BenchCommand(new ChildLauncher(CachegateCli.class.getName())));
            }
            return CommandLine.defaultFactory().create(type);
        }
    }
}
