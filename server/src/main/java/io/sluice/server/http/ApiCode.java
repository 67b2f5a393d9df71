package io.sluice.server.http;

/**
 * The result codes of NanoMQ's HTTP API v4 ({@code "code"} in every JSON answer), with the same
 * numbers, so scripts written for NanoMQ read Sluice's answers unchanged.
 */
public enum ApiCode {
    SUCCEED(0),
    RPC_ERROR(101),
    UNKNOWN_MISTAKE(102),
    WRONG_USERNAME_OR_PASSWORD(103),
    EMPTY_USERNAME_OR_PASSWORD(104),
    USER_DOES_NOT_EXIST(105),
    MISSING_KEY_REQUEST_PARAMS(107),
    REQ_PARAM_ERROR(108),
    REQ_PARAMS_JSON_FORMAT_ILLEGAL(109),
    CLIENT_IS_OFFLINE(112),
    ILLEGAL_SUBJECT(115),
    PARAMS_HOCON_FORMAT_ILLEGAL(117);

    private final int number;

    ApiCode(int number) {
        this.number = number;
    }

    /** The number NanoMQ uses. */
    public int number() {
        return number;
    }
}
