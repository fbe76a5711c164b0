package io.cachegate.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code cachegate} command: one sub-command per job (serve, demo, simulate-backend, bench, validate). */
@Command(name = "cachegate", mixinStandardHelpOptions = true, version = "cachegate 0.1.0",
        description = "An inference caching reverse proxy for OpenAI-compatible model servers.",
        subcommands = {ServeCommand.class, DemoCommand.class, SimulateBackendCommand.class, BenchCommand.class,
                ValidateCommand.class, EvalSemanticCommand.class, FitDecisionCommand.class,
                CommandLine.HelpCommand.class})
public final class CachegateCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command tree, also used by the tests. */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new CachegateCli());
        cli.getSubcommands().get("bench").addSubcommand("overhead", new BenchOverheadCommand());
        cli.getSubcommands().get("bench").addSubcommand("exact-cache", new BenchExactCacheCommand());
        cli.getSubcommands().get("bench").addSubcommand("semantic", new BenchSemanticCommand());
        cli.getSubcommands().get("bench").addSubcommand("overload", new BenchOverloadCommand());
        cli.getSubcommands().get("bench").addSubcommand("prefix-affinity", new BenchPrefixAffinityCommand());
        return cli;
    }
}
