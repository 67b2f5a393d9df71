package io.sluice.server.http;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The route table: method and path pattern ({@code /api/v4/clients/{clientid}}) to an
 * {@link Endpoint}, with who may call it. A pattern segment in braces matches one path segment
 * and is handed to the endpoint by name; a trailing {@code {*rest}} matches the rest of the path.
 * Built once at start-up, then read by any thread.
 */
public final class Routes {
    /** Who may call a route. */
    public enum Access {
        /** Anyone: the dashboard's static files, which hold no data. */
        OPEN,
        /** {@code /metrics} and {@code /health}: anyone unless {@code http_server.auth_metrics = true}. */
        METRICS,
        /** The API: credentials when any are configured. */
        API
    }

    /** A route that matched, with its path parameters. */
    public record Match(Route route, Map<String, String> params) {
    }

    /** One route. */
    public record Route(HttpMethod method, String[] segments, Access access, Endpoint endpoint) {
    }

    private final List<Route> routes = new ArrayList<>();

    /** Adds a route; later routes never shadow earlier ones. */
    public Routes add(HttpMethod method, String pattern, Access access, Endpoint endpoint) {
        routes.add(new Route(method, split(pattern), access, endpoint));
        return this;
    }

    public Routes get(String pattern, Endpoint endpoint) {
        return add(HttpMethod.GET, pattern, Access.API, endpoint);
    }

    public Routes post(String pattern, Endpoint endpoint) {
        return add(HttpMethod.POST, pattern, Access.API, endpoint);
    }

    public Routes delete(String pattern, Endpoint endpoint) {
        return add(HttpMethod.DELETE, pattern, Access.API, endpoint);
    }

    /**
     * The route for {@code method} and the still %-encoded {@code rawPath}; HEAD is served by GET routes. Throws 404 when
     * no pattern matches and 405 when one matches with another method.
     */
    public Match find(HttpMethod method, String rawPath) throws ApiException {
        String[] parts = split(rawPath);
        for (int i = 0; i < parts.length; i++) {
            parts[i] = decode(parts[i]);
        }
        HttpMethod wanted = method.equals(HttpMethod.HEAD) ? HttpMethod.GET : method;
        boolean otherMethod = false;
        for (Route route : routes) {
            Map<String, String> params = match(route.segments(), parts);
            if (params == null) {
                continue;
            }
            if (route.method().equals(wanted)) {
                return new Match(route, params);
            }
            otherMethod = true;
        }
        if (otherMethod) {
            throw new ApiException(HttpResponseStatus.METHOD_NOT_ALLOWED, ApiCode.UNKNOWN_MISTAKE,
                    "method " + method.name() + " is not allowed here");
        }
        throw ApiException.notFound("no such path; the API is under /api/v4, metrics at /metrics");
    }

    private static Map<String, String> match(String[] pattern, String[] parts) {
        Map<String, String> params = new HashMap<>();
        for (int i = 0; i < pattern.length; i++) {
            String p = pattern[i];
            if (p.startsWith("{*")) {
                params.put(p.substring(2, p.length() - 1), String.join("/", List.of(parts).subList(i, parts.length)));
                return params;
            }
            if (i >= parts.length) {
                return null;
            }
            if (p.startsWith("{")) {
                params.put(p.substring(1, p.length() - 1), parts[i]);
            } else if (!p.equals(parts[i])) {
                return null;
            }
        }
        return pattern.length == parts.length ? params : null;
    }

    /** One %-encoded path segment; an encoded {@code /} stays inside its segment (client ids may hold one). */
    private static String decode(String segment) throws ApiException {
        try {
            return QueryStringDecoder.decodeComponent(segment.replace("+", "%2B"));
        } catch (IllegalArgumentException e) {
            throw ApiException.badParameter("the path is not validly %-encoded");
        }
    }

    private static String[] split(String path) {
        String trimmed = path.startsWith("/") ? path.substring(1) : path;
        if (trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        return trimmed.isEmpty() ? new String[0] : trimmed.split("/", -1);
    }
}
