package io.sluice.server.http;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A request the API refuses: the HTTP status, NanoMQ's result code and a message for the caller.
 * The message may quote what the caller sent; it is always written JSON-escaped, never as markup.
 */
public final class ApiException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient HttpResponseStatus status;
    private final ApiCode code;

    public ApiException(HttpResponseStatus status, ApiCode code, String message) {
        super(message);
        this.status = status;
        this.code = code;
    }

    /** 400 with {@link ApiCode#REQ_PARAM_ERROR}: a parameter that is malformed or out of range. */
    public static ApiException badParameter(String message) {
        return new ApiException(HttpResponseStatus.BAD_REQUEST, ApiCode.REQ_PARAM_ERROR, message);
    }

    /** 404 with {@link ApiCode#UNKNOWN_MISTAKE}, as NanoMQ answers an unknown path. */
    public static ApiException notFound(String message) {
        return new ApiException(HttpResponseStatus.NOT_FOUND, ApiCode.UNKNOWN_MISTAKE, message);
    }

    public HttpResponseStatus status() {
        return status;
    }

    public ApiCode code() {
        return code;
    }
}
