package io.latchkey.internal.rw;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What {@link ReadShareSimulation} checks at each local admission of a reader, from what it saw
 * Redis answer, independently of {@link AdmissionBudget}: for each client's shared hold (an
 * "episode", from its grant to its end) the answers that told of a waiting writer, of a doubt, or
 * that found no writer waiting, and the token blocks reserved for it; for each live place of a
 * waiting writer in the model, the admissions of each client since the place began.
 *
 * <p>A local admission must find: the shared hold in the model, with more than the command timeout
 * of its lease left (unless a force-unlock or failover exempts its token); no writer known to wait,
 * unless a reserve sent after that found the hold and no writer; no doubt, unless a reserve that
 * Redis ran after its cause (the failed call, the lost connection) found the hold; fewer than the
 * bound of admissions, and less than its time, since the send of the last answer that found no
 * writer waiting; at most the bound of admissions and less than its time since any writer's
 * place in Redis began; a token from a block reserved for this episode, above the client's earlier
 * local tokens and above every writer's token granted before. "Since" and "after" are by the
 * simulation's order of events, not by the ticker (many events share a reading of it). Not
 * thread-safe.
 */
final class AdmissionChecks {

    private final ReadWriteModel model;
    private final int maxAdmissions;
    private final long maxTimeNanos;
    private final long marginNanos;
    private final Consumer<String> fail;
    private final Map<String, Episode> episodes = new HashMap<>();
    private final Map<String, Long> lastLocalToken = new HashMap<>();
    /** Local admissions per client and writer's place (field and start), while the place is live. */
    private final Map<String, Integer> sincePlace = new HashMap<>();
    private long maxWriterToken;
    private long exemptUpTo;

    AdmissionChecks(ReadWriteModel model, int maxAdmissions, long maxTimeNanos, long marginNanos, Consumer<String> fail) {
        this.model = model;
        this.maxAdmissions = maxAdmissions;
        this.maxTimeNanos = maxTimeNanos;
        this.marginNanos = marginNanos;
        this.fail = fail;
    }

    /** One shared hold of one client, as Redis's answers told of it. */
    private static final class Episode {
        final String field;
        final long token;
        final List<long[]> blocks = new ArrayList<>();
        long admissions = 1;
        long heardSeq;
        long heardNanos;
        long heardAdmissions;
        long knownSeq = -1;
        long doubtSeq = -1;

        Episode(String field, long token) {
            this.field = field;
            this.token = token;
        }
    }

    /** Tokens up to this one may be of holds that a force-unlock or failover ended under their owners. */
    void exemptUpTo(long token) {
        exemptUpTo = Math.max(exemptUpTo, token);
    }

    /** A writer's hold began in Redis with this token. */
    void writerGranted(long token) {
        maxWriterToken = Math.max(maxWriterToken, token);
    }

    /** The client's share took the grant of its try sent at {@code sentSeq}: a new episode. */
    void shareGranted(String client, String field, long token, int block, long sentSeq, long sentNanos) {
        Episode episode = new Episode(field, token);
        episode.blocks.add(new long[] {token, token + block - 1});
        episode.heardSeq = sentSeq;
        episode.heardNanos = sentNanos;
        episode.heardAdmissions = 0;
        episodes.put(client, episode);
    }

    /** @return the admissions of the client's episode with {@code token} so far, for a reserve sent now */
    long admissions(String client, long token) {
        Episode episode = episodes.get(client);
        return episode != null && episode.token == token ? episode.admissions : 0;
    }

    /**
     * The client's share took the answer of a reserve for its hold {@code token}, sent at event
     * {@code sentSeq} and run by Redis at event {@code ranSeq}.
     */
    void reserveAnswered(String client, long token, long sentSeq, long ranSeq, long sentNanos, long admissionsThen,
                         ShareRedis.Reserved answer, int block, long seq) {
        Episode episode = episodes.get(client);
        if (episode == null || episode.token != token || !answer.held()) {
            return;
        }
        if (ranSeq > episode.doubtSeq) {
            episode.doubtSeq = -1;
        }
        if (answer.writerWaits()) {
            episode.knownSeq = seq;
            return;
        }
        if (sentSeq > episode.knownSeq) {
            episode.knownSeq = -1;
        }
        episode.blocks.add(new long[] {answer.firstToken(), answer.firstToken() + block - 1});
        if (sentSeq > episode.heardSeq) {
            episode.heardSeq = sentSeq;
            episode.heardNanos = sentNanos;
            episode.heardAdmissions = admissionsThen;
        }
    }

    /** A write try of the client was answered "wait" while its share held: it knows of a writer. */
    void writerKnown(String client, long seq) {
        Episode episode = episodes.get(client);
        if (episode != null) {
            episode.knownSeq = seq;
        }
    }

    /**
     * The client has reason to doubt its shared hold {@code token} (0: whichever it has), from the
     * event {@code seq} on: a reserve that Redis ran after every such event clears the doubts.
     */
    void doubted(String client, long token, long seq) {
        Episode episode = episodes.get(client);
        if (episode != null && (token == 0 || episode.token == token)) {
            episode.doubtSeq = Math.max(episode.doubtSeq, seq);
        }
    }

    /**
     * A reader of the client was admitted locally (not the one whose try took the shared hold).
     *
     * @param shareToken the token of the shared hold it was admitted on
     */
    void admitted(String client, long owner, long token, long shareToken, long nowNanos) {
        String who = client + "/" + owner;
        Episode episode = episodes.get(client);
        if (episode == null || episode.token != shareToken) {
            fail.accept(who + " was admitted on shared hold " + shareToken + ", which the client was never granted");
            return;
        }
        episode.admissions++;
        if (episode.knownSeq >= 0) {
            fail.accept(who + " was admitted locally while its client knew that a writer waits");
        }
        if (episode.doubtSeq >= 0) {
            fail.accept(who + " was admitted locally while its client doubted its shared hold");
        }
        long since = episode.admissions - episode.heardAdmissions;
        if (since > maxAdmissions) {
            fail.accept(who + " was the " + since + "th admission since the last answer that found no writer; bound " + maxAdmissions);
        }
        if (nowNanos - episode.heardNanos >= maxTimeNanos) {
            fail.accept(who + " was admitted " + (nowNanos - episode.heardNanos) / 1e6
                    + " ms after the send of the last answer that found no writer");
        }
        boolean exempt = token <= exemptUpTo;
        if (!exempt && (model.token(episode.field) != shareToken || model.leaseEnd(episode.field) - nowNanos <= marginNanos)) {
            fail.accept(who + " was admitted on shared hold " + shareToken + ", which Redis has not within the margin");
        }
        if (episode.blocks.stream().noneMatch(block -> token >= block[0] && token <= block[1])) {
            fail.accept(who + " got token " + token + ", from no block reserved for shared hold " + shareToken);
        }
        long last = lastLocalToken.getOrDefault(client, 0L);
        if (token <= last) {
            fail.accept(who + " got token " + token + ", not above its client's earlier local token " + last);
        }
        lastLocalToken.put(client, token);
        if (!exempt && token <= maxWriterToken) {
            fail.accept(who + " got token " + token + ", not above the writer's " + maxWriterToken + " granted before");
        }
        model.livePlaces().forEach((field, place) -> {
            int count = sincePlace.merge(client + " " + place.number(), 1, Integer::sum);
            if (count > maxAdmissions) {
                fail.accept(who + " was " + client + "'s " + count + "th admission since writer " + field
                        + " took its place in Redis; bound " + maxAdmissions);
            }
            if (nowNanos - place.since() >= maxTimeNanos) {
                fail.accept(who + " was admitted " + (nowNanos - place.since()) / 1e6 + " ms after writer " + field
                        + " took its place in Redis");
            }
        });
    }
}
