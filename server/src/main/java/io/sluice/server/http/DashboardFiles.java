package io.sluice.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dashboard's static files: {@code /} is {@code dashboard/index.html} from the classpath,
 * {@code /static/<file>} the rest of {@code dashboard/}, and {@code /webjars/<name>/<file>} a file of
 * the WebJar {@code org.webjars.npm:<name>} on the classpath (its version is looked up, so pages
 * need not name it). Files hold no data, so they are served without credentials; everything they
 * show comes from the API, which asks for them. Read once and kept.
 */
public final class DashboardFiles {
    private static final String ROOT = "dashboard/";
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8", "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8", "svg", "image/svg+xml", "png", "image/png",
            "ico", "image/x-icon", "map", "application/json");

    private final Map<String, Reply> cache = new ConcurrentHashMap<>();

    /** {@code GET /}. */
    public Reply index(ApiRequest request) throws ApiException {
        return load(ROOT + "index.html");
    }

    /** {@code GET /static/{*file}}. */
    public Reply file(ApiRequest request) throws ApiException {
        return load(ROOT + checked(request.pathParam("file")));
    }

    /** {@code GET /webjars/{name}/{*file}}. */
    public Reply webjar(ApiRequest request) throws ApiException {
        String name = checked(request.pathParam("name"));
        String version = webjarVersion(name);
        return load("META-INF/resources/webjars/" + name + "/" + version + "/" + checked(request.pathParam("file")));
    }

    /** A relative path without tricks: no {@code ..}, no empty, hidden or absolute segments. */
    private static String checked(String path) throws ApiException {
        if (path == null || path.isEmpty() || path.startsWith("/") || path.contains("\\")) {
            throw ApiException.notFound("no such file");
        }
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty() || segment.startsWith(".")) {
                throw ApiException.notFound("no such file");
            }
        }
        return path;
    }

    private static String webjarVersion(String name) throws ApiException {
        String properties = "META-INF/maven/org.webjars.npm/" + name + "/pom.properties";
        try (InputStream in = DashboardFiles.class.getClassLoader().getResourceAsStream(properties)) {
            if (in == null) {
                throw ApiException.notFound("no WebJar '" + ApiRequest.clip(name) + "'");
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + properties + " failed", e);
        }
    }

    private Reply load(String resource) throws ApiException {
        Reply cached = cache.get(resource);
        if (cached != null) {
            return cached;
        }
        try (InputStream in = DashboardFiles.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw ApiException.notFound("no such file");
            }
            String extension = resource.substring(resource.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
            Reply reply = Reply.file(TYPES.getOrDefault(extension, "application/octet-stream"), in.readAllBytes());
            cache.put(resource, reply);
            return reply;
        } catch (IOException e) {
            throw new UncheckedIOException("reading the dashboard file " + resource + " failed", e);
        }
    }
}
