package io.sluice.kafka.api;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;

import io.sluice.net.auth.ClientIdentity;

/**
 * One parsed request, as every handler gets it.
 *
 * @param header  the request header (API, version, correlation id, client id)
 * @param body    the parsed body, of the request class of the API
 * @param session the connection it came on
 */
public record Request(RequestHeader header, AbstractRequest body, Session session) {

    public ApiKeys key() {
        return header.apiKey();
    }

    public short version() {
        return header.apiVersion();
    }

    /** Who sent it, as the ACL sees it: Kafka's client.id as the client id, the SASL user as the user name. */
    public ClientIdentity identity() {
        return new ClientIdentity(header.clientId(), session.username(), session.address());
    }

    /** The body as its request class. */
    @SuppressWarnings("unchecked")
    public <T extends AbstractRequest> T as(Class<T> type) {
        return (T) body;
    }
}
