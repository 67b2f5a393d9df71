package io.sluice.server.http;

/** One API operation: turns a request into a reply, or refuses it with an {@link ApiException}. */
@FunctionalInterface
public interface Endpoint {
    /** Runs on an HTTP worker thread, never on the I/O thread, so it may block briefly. */
    Reply handle(ApiRequest request) throws ApiException;
}
