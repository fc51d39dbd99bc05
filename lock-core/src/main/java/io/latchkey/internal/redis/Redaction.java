package io.latchkey.internal.redis;

import io.lettuce.core.RedisURI;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps passwords out of exception messages, log lines and {@code toString()}s: the one place
 * where a Redis URI is made fit to show. Every message or log line that may show a URI passes it
 * through here.
 *
 * <p>The rule drops everything between the scheme and the <em>last</em> {@code '@'} and puts
 * {@value #MASK} there, so the user name goes too, and a password that holds {@code '@'},
 * {@code '/'}, {@code ':'}, {@code '?'} or {@code '#'} itself (unencoded) is dropped whole; the
 * rule may drop more than the credentials, never less. Applying it twice changes nothing.
 * Thread-safe; stateless.
 */
public final class Redaction {

    /** What stands where the credentials were. */
    public static final String MASK = "***";

    /** A URI's start in free text: a scheme, {@code "://"}, then everything up to the token's last '@'. */
    private static final Pattern URI_WITH_CREDENTIALS = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)\\S*@");

    private Redaction() {
    }

    /**
     * @param uri a Redis URI as configured ({@code redis://user:password@host:port/0},
     *     {@code rediss://...}, {@code redis-sentinel://password@host1,host2/0#master}), valid or
     *     not; not null
     * @return the URI without its credentials: {@code redis://***@host:port/0}; unchanged if it
     *     has none
     */
    public static String uri(String uri) {
        int scheme = uri.indexOf("://");
        int from = scheme < 0 ? 0 : scheme + 3;
        int at = uri.lastIndexOf('@');
        return at < from ? uri : uri.substring(0, from) + MASK + uri.substring(at);
    }

    /**
     * @param uri a parsed URI; not null
     * @return its text without credentials (Lettuce masks the password, but as long as it is)
     */
    public static String uri(RedisURI uri) {
        return uri(uri.toString());
    }

    /**
     * @param uris Redis URIs as configured; not null
     * @return each without its credentials, in the same order
     */
    public static List<String> uris(List<String> uris) {
        return uris.stream().map(Redaction::uri).toList();
    }

    /**
     * For text that may quote URIs but was not written here, such as the message of a Redis
     * client's exception or the description of a connection: redacts every {@code scheme://...@}
     * in it, each as {@link #uri(String)} does within its whitespace-delimited word.
     *
     * @param text any text, or null
     * @return the text with every URI's credentials masked; {@code "null"} for null
     */
    public static String inText(String text) {
        if (text == null) {
            return "null";
        }
        Matcher matcher = URI_WITH_CREDENTIALS.matcher(text);
        return matcher.replaceAll(found -> Matcher.quoteReplacement(found.group(1) + MASK + "@"));
    }
}
