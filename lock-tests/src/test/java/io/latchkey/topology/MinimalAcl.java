package io.latchkey.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The README's "Minimal ACL", read from the README itself, so that the tests give their users
 * exactly what the README tells operators to give theirs: one row of commands per lock kind, and
 * rows of additions (Cluster, sharded pub/sub).
 */
public final class MinimalAcl {

    public static final String PLAIN = "plain lock, `noLocalHandOff()`";
    public static final String PLAIN_WITH_HAND_OFF = "plain lock with local hand-off (the default)";
    public static final String FAIR = "fair lock";
    public static final String READ_WRITE = "read-write lock";
    public static final String SEMAPHORE = "semaphore";
    public static final String RED_LOCK_MASTER = "RedLock, on each master";
    public static final String CLUSTER = "Redis Cluster, on every node";
    public static final String SHARDED_PUB_SUB = "Redis 7 Cluster";

    private static final Pattern CODE = Pattern.compile("`([^`]*)`");

    private MinimalAcl() {
    }

    /**
     * @param row the first cell of a row of the section's tables, one of this class's constants
     * @return the commands of its second cell, such as {@code +hello}, in the README's order
     */
    public static List<String> commands(String row) {
        String section = section();
        String start = "\n| " + row + " | ";
        int at = section.indexOf(start);
        if (at < 0) {
            throw new AssertionError("the README's Minimal ACL has no row '" + row + "'");
        }
        int end = section.indexOf('\n', at + start.length());
        String cell = section.substring(at + start.length(), end);
        cell = cell.substring(0, cell.lastIndexOf(" |")).replace("\\|", "|");
        Matcher code = CODE.matcher(cell);
        List<String> commands = new ArrayList<>();
        // The first code span holds the commands; later ones (none today) would be remarks.
        if (code.find()) {
            commands.addAll(Arrays.asList(code.group(1).trim().split("\\s+")));
        }
        if (commands.isEmpty() || !commands.stream().allMatch(command -> command.matches("\\+[a-z|]+"))) {
            throw new AssertionError("the row '" + row + "' is not a list of +commands: " + cell);
        }
        return List.copyOf(commands);
    }

    /**
     * @param rows rows of the README, as {@link #commands(String)} takes them
     * @return the union of their commands, without repeats
     */
    public static List<String> union(String... rows) {
        LinkedHashSet<String> union = new LinkedHashSet<>();
        for (String row : rows) {
            union.addAll(commands(row));
        }
        return List.copyOf(union);
    }

    /**
     * @param password the user's password
     * @param prefix the clients' key prefix
     * @param lockNames the key pattern of the application's lock names, such as {@code locks:*}
     * @param commands the commands, such as {@code +hello}
     * @return the rules of {@code ACL SETUSER <name> ...} for a user confined as the README says:
     *     its lock names, {@code ~prefix:*}, {@code &prefix:*} and nothing but the commands
     */
    public static List<String> rules(String password, String prefix, String lockNames, List<String> commands) {
        List<String> rules = new ArrayList<>(List.of("reset", "on", ">" + password, "resetkeys", "~" + lockNames,
                "~" + prefix + ":*", "resetchannels", "&" + prefix + ":*", "-@all"));
        rules.addAll(commands);
        return rules;
    }

    /**
     * @param name the user's name
     * @param rules its rules
     * @return the command that creates (or replaces) it
     */
    public static String[] setUser(String name, List<String> rules) {
        List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", name));
        command.addAll(rules);
        return command.toArray(String[]::new);
    }

    private static String section() {
        String readme;
        try {
            readme = Files.readString(Path.of("..", "README.md"));
        } catch (IOException e) {
            throw new UncheckedIOException("the tests run in lock-tests, beside the README's directory", e);
        }
        int start = readme.indexOf("\n### Minimal ACL\n");
        if (start < 0) {
            throw new AssertionError("the README has no section 'Minimal ACL'");
        }
        int end = readme.indexOf("\n#", start + 1);
        return readme.substring(start, end < 0 ? readme.length() : end);
    }
}
