package io.latchkey.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The class path of an application that depends on the starter, seen from this module's tests:
 * the starter's optional dependencies are on the tests' class path but would not reach the
 * application (Maven leaves optional dependencies out of its dependents), so this class loader
 * hides them, classes and resources alike, as Spring Boot's own {@code FilteredClassLoader} hides
 * what a condition must not find. The optional dependencies are read from the starter's
 * {@code pom.xml}, so the test follows the pom; those named as the application's own stay
 * visible. Hides only the optional artifacts themselves, not what they alone bring.
 */
final class StarterClassPath extends ClassLoader {

    static {
        registerAsParallelCapable();
    }

    private final List<String> hidden;

    private StarterClassPath(List<String> hidden, ClassLoader parent) {
        super(parent);
        this.hidden = hidden;
    }

    /**
     * @param applicationOwn artifact ids of optional dependencies that the application has of its
     *     own (say {@code micrometer-core}, which Actuator brings)
     * @return the class path of an application with the starter's dependencies and these
     */
    static StarterClassPath withApplicationsOwn(Set<String> applicationOwn) {
        List<String> hidden = new ArrayList<>();
        for (String artifactId : optionalDependencies(Path.of("pom.xml"))) {
            if (!applicationOwn.contains(artifactId)) {
                hidden.add('/' + artifactId + '/');
            }
        }
        return new StarterClassPath(List.copyOf(hidden), StarterClassPath.class.getClassLoader());
    }

    /** {@return the path fragments of the artifacts hidden, such as {@code /lock-micrometer/}} */
    List<String> hidden() {
        return hidden;
    }

    private static List<String> optionalDependencies(Path pom) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Element project = factory.newDocumentBuilder().parse(Files.newInputStream(pom)).getDocumentElement();
            List<String> optional = new ArrayList<>();
            for (Element dependency : children(child(project, "dependencies"), "dependency")) {
                if (child(dependency, "optional") != null && "true".equals(child(dependency, "optional").getTextContent().trim())) {
                    optional.add(child(dependency, "artifactId").getTextContent().trim());
                }
            }
            return optional;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the optional dependencies of " + pom.toAbsolutePath(), e);
        }
    }

    /** The element's own child of that name (not one of an exclusion inside it), or null. */
    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0);
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                found.add(element);
            }
        }
        return found;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        String classFile = name.replace('.', '/') + ".class";
        if (getResource(classFile) == null && getParent().getResource(classFile) != null) {
            throw new ClassNotFoundException(name + " is in an optional dependency of the starter");
        }
        return super.loadClass(name, resolve);
    }

    @Override
    public URL getResource(String name) {
        try {
            Enumeration<URL> found = getResources(name);
            return found.hasMoreElements() ? found.nextElement() : null;
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        List<URL> visible = new ArrayList<>();
        for (URL url : Collections.list(getParent().getResources(name))) {
            if (!isHidden(url, name)) {
                visible.add(url);
            }
        }
        return Collections.enumeration(visible);
    }

    /** Judged by where the resource comes from (the jar, or the directory of classes), not by its own name. */
    private boolean isHidden(URL url, String name) {
        String location = url.toString();
        String where = location.endsWith(name) ? location.substring(0, location.length() - name.length()) : location;
        return hidden.stream().anyMatch(where::contains);
    }
}
