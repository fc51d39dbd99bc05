package io.latchkey.spring;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParserContext;
import org.springframework.expression.common.CompositeStringExpression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Locked#name()} of one method: literal text and {@code #{...}} parts, parsed once.
 *
 * <p>Every part must give a value at every call. SpEL writes a part that is null as nothing, and
 * a variable that names no parameter (a misspelled {@code #orderID} for {@code orderId}) is
 * null, so every call would share one lock ({@code orders:}) and the method would run one call at
 * a time across the whole application, silently. So a part that refers to a parameter the method
 * does not have fails the application's start where that can be told: always for {@code #p0} /
 * {@code #a0}, and for names when the method's parameter names are known (it was compiled with
 * {@code -parameters}). Otherwise, and for parts that are null or empty only at some calls, the
 * call fails. Every failure is an {@link IllegalStateException} naming the method and the name.
 *
 * <p>Immutable and thread-safe.
 */
final class LockNameTemplate {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    /** {@code #p0}, {@code #a0}: an argument by its position, whatever the parameters are called. */
    private static final Pattern BY_POSITION = Pattern.compile("[pa](\\d{1,9})");
    /** SpEL's own variables: the root object (the bean) and the current object. */
    private static final Set<String> SPEL_VARIABLES = Set.of("root", "this");

    private final Method method;
    private final String text;
    private final List<Expression> parts;
    /** Variables that the start could not check, for want of parameter names; never null. */
    private final Set<String> unchecked;

    private LockNameTemplate(Method method, String text, List<Expression> parts, Set<String> unchecked) {
        this.method = method;
        this.text = text;
        this.parts = parts;
        this.unchecked = unchecked;
    }

    /**
     * Parses the name and checks every variable it refers to against the method's parameters.
     *
     * @param method the method, for its parameter count and for messages
     * @param text the name as the annotation gives it
     * @param parameterNames the method's parameter names, or null if they were not compiled in
     * @return the template
     * @throws IllegalStateException naming the method and the name if the name is empty, does
     *     not parse, or refers to a parameter that the method does not have
     */
    static LockNameTemplate parse(Method method, String text, String @Nullable [] parameterNames) {
        if (text.isEmpty()) {
            throw LockedMethod.invalid(method, "the name is empty", null);
        }
        Expression parsed;
        try {
            parsed = PARSER.parseExpression(text, ParserContext.TEMPLATE_EXPRESSION);
        } catch (RuntimeException e) {
            throw LockedMethod.invalid(method, "the name '" + text + "' does not parse: " + e.getMessage(), e);
        }
        List<Expression> parts = parsed instanceof CompositeStringExpression composite
                ? List.of(composite.getExpressions()) : List.of(parsed);
        Set<String> unchecked = new LinkedHashSet<>();
        for (Expression part : parts) {
            for (String variable : variables(part)) {
                String problem = problem(variable, method.getParameterCount(), parameterNames);
                if (problem != null) {
                    throw LockedMethod.invalid(method, "the name '" + text + "' refers to #" + variable + problem, null);
                }
                if (parameterNames == null && !knownWithoutNames(variable)) {
                    unchecked.add(variable);
                }
            }
        }
        return new LockNameTemplate(method, text, parts, Set.copyOf(unchecked));
    }

    /**
     * @param context the call's evaluation context: the bean as root, the arguments as variables
     * @return the lock's name for this call
     * @throws IllegalStateException naming the method and the name if a part cannot be
     *     evaluated, or is null or empty at this call
     */
    String evaluate(EvaluationContext context) {
        StringBuilder name = new StringBuilder();
        for (Expression part : parts) {
            String value;
            try {
                value = part.getValue(context, String.class);
            } catch (EvaluationException e) {
                throw LockedMethod.invalid(method, "the name '" + text + "' cannot be evaluated: " + e.getMessage(), e);
            }
            if (value == null || value.isEmpty()) {
                throw LockedMethod.invalid(method, "in the name '" + text + "', the part #{" + part.getExpressionString() + "} is "
                        + (value == null ? "null" : "empty") + " at this call" + hint(part)
                        + "; a part must have a value at every call, or all such calls would share one lock", null);
            }
            name.append(value);
        }
        return name.toString();
    }

    /** @return why {@code variable} cannot be right for the method, or null if it may be */
    private static @Nullable String problem(String variable, int parameterCount, String @Nullable [] parameterNames) {
        if (SPEL_VARIABLES.contains(variable) || (parameterNames != null && Arrays.asList(parameterNames).contains(variable))) {
            return null;
        }
        Matcher position = BY_POSITION.matcher(variable);
        if (position.matches()) {
            int index = Integer.parseInt(position.group(1));
            return index < parameterCount ? null
                    : ", the argument at position " + index + " (from 0), but the method has " + parameters(parameterCount);
        }
        if (parameterNames == null) {
            return null; // cannot be told here: the call will
        }
        return ", which is not a parameter of the method (" + (parameterNames.length == 0 ? "it has none"
                : Arrays.stream(parameterNames).map(name -> '#' + name).collect(Collectors.joining(", ", "its parameters: ", ""))) + ')';
    }

    private static boolean knownWithoutNames(String variable) {
        return SPEL_VARIABLES.contains(variable) || BY_POSITION.matcher(variable).matches();
    }

    private static String parameters(int count) {
        return count == 0 ? "no parameters" : count == 1 ? "1 parameter" : count + " parameters";
    }

    /** @return why the part may be null at every call: a variable the start could not check */
    private String hint(Expression part) {
        Set<String> suspects = variables(part).stream().filter(unchecked::contains).collect(Collectors.toCollection(LinkedHashSet::new));
        if (suspects.isEmpty()) {
            return "";
        }
        return " (is " + suspects.stream().map(name -> '#' + name).collect(Collectors.joining(", "))
                + " a parameter of the method? It could not be checked at start-up: the method was compiled without -parameters)";
    }

    /** @return the names of the variables ({@code #name}) that a part refers to */
    private static Set<String> variables(Expression part) {
        Set<String> found = new LinkedHashSet<>();
        if (part instanceof SpelExpression spel) {
            collect(spel.getAST(), found);
        }
        return found;
    }

    private static void collect(SpelNode node, Set<String> found) {
        if (node instanceof VariableReference) {
            found.add(node.toStringAST().substring(1)); // "#name"
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collect(node.getChild(i), found);
        }
    }
}
