package io.sluice.kafka.api;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.kafka.KafkaAuthorizer;
import io.sluice.kafka.KafkaSettings;
import io.sluice.kafka.MqttPublisher;
import io.sluice.kafka.codec.ApiVersionsTable;
import io.sluice.kafka.codec.LegacyRequests;
import io.sluice.kafka.codec.Responses;
import io.sluice.kafka.group.GroupCoordinator;
import io.sluice.kafka.group.GroupStore;
import io.sluice.logging.RateLimitedLog;
import io.sluice.net.auth.Authenticator;
import io.sluice.net.auth.ClientIdentity;
import io.sluice.streams.Streams;

/**
 * Turns one request frame into its response, as Kafka's {@code KafkaApis} does: it reads the
 * header, decides whether the version can be answered, parses the body with kafka-clients'
 * classes, checks authentication, and hands the request to the handler of its API family. Runs on
 * a request thread; what waits (long-polling fetches, group rebalances, durable appends) completes
 * the returned future later, from another thread.
 *
 * <p>Versions: an unknown ApiVersions version gets a v0 answer with UNSUPPORTED_VERSION and the
 * table (clients then retry with one they know); ListOffsets v0 and Produce v0-v2 are answered by
 * hand ({@link LegacyRequests}); any other version kafka-clients cannot parse closes the connection
 * (there is no way to shape an answer the client would read, and none of them is advertised); a
 * parseable request of an API or version not advertised (transactions, say) gets its API's error
 * response with UNSUPPORTED_VERSION. A frame that does not parse closes the connection, and so does
 * any request but ApiVersions and SASL before authentication when anonymous clients are not allowed
 * (as on Kafka's SASL listeners).
 */
public final class KafkaApis {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaApis.class);

    /**
     * What to send back: a frame as buffers to send in order (null for none), whether to close the
     * connection after it, and what to run once it is sent or dropped (a fetch's record buffers are
     * freed then).
     */
    public record Reply(ByteBuffer[] frame, boolean close, Runnable sent) {
        static final Reply NOTHING = new Reply(null, false);

        Reply(ByteBuffer[] frame, boolean close) {
            this(frame, close, () -> { });
        }

        static Reply of(ByteBuffer frame) {
            return frame == null ? NOTHING : new Reply(new ByteBuffer[] {frame}, false);
        }
    }

    /** A frame that cannot be answered: the connection closes, with this message in the log. */
    public static final class Unanswerable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unanswerable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final Authenticator authenticator;
    private final ClusterHandler cluster;
    private final ProduceHandler produce;
    private final FetchHandler fetch;
    private final OffsetsHandler offsets;
    private final GroupHandler groups;
    private final TopicsHandler topicsHandler;
    private final SaslHandler sasl;
    private final Streams streams;
    private final RateLimitedLog failures = RateLimitedLog.onePer(LOG, "kafka listener", Duration.ofSeconds(10));
    private final boolean anonymousAllowed;
    private volatile Node node;

    public KafkaApis(KafkaSettings settings, Streams streams, Authenticator authenticator, KafkaAuthorizer authorizer,
                     MqttPublisher publisher, Executor requests, ScheduledExecutorService timer) {
        this.streams = streams;
        this.authenticator = authenticator;
        KafkaTopics topics = new KafkaTopics(streams);
        this.cluster = new ClusterHandler(topics, authorizer);
        this.produce = new ProduceHandler(topics, authorizer, publisher, settings.maxRequestSize());
        this.fetch = new FetchHandler(topics, authorizer, requests, timer);
        this.offsets = new OffsetsHandler(topics, authorizer);
        this.groups = new GroupHandler(topics, authorizer, new GroupCoordinator(timer, groupStore(streams)));
        this.topicsHandler = new TopicsHandler(topics, authorizer, settings);
        this.sasl = new SaslHandler(authenticator);
        this.anonymousAllowed = authenticator.authenticate(new ClientIdentity("", null, null), null)
                == Authenticator.Verdict.ACCEPTED;
        streams.addAppendListener(fetch);
    }

    /** Consumer groups are saved in the streams' state log, beside the offsets they commit. */
    private static GroupStore groupStore(Streams streams) {
        return new GroupStore() {
            @Override
            public Map<String, byte[]> load() {
                return streams.groupStates();
            }

            @Override
            public void save(String groupId, byte[] state) {
                streams.saveGroupState(groupId, state);
            }
        };
    }

    /** Sets the address clients are told to use; before any connection is accepted. */
    public void advertise(Node advertised) {
        this.node = advertised;
    }

    /** Whether clients may use the listener without SASL. */
    public boolean anonymousAllowed() {
        return anonymousAllowed;
    }

    /** Stops listening to the streams. */
    public void close() {
        streams.removeAppendListener(fetch);
    }

    /**
     * Answers one request frame (header and body, without the size). Throws {@link Unanswerable}
     * (or completes with it) when the connection must close instead.
     */
    public CompletableFuture<Reply> handle(Session session, byte[] frame) {
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        if (frame.length < 8) {
            throw new Unanswerable("a request of " + frame.length + " bytes is too short for a header", null);
        }
        short apiKey = buffer.getShort(0);
        short version = buffer.getShort(2);
        int correlationId = buffer.getInt(4);
        if (!ApiKeys.hasId(apiKey)) {
            throw new Unanswerable("unknown API key " + apiKey, null);
        }
        ApiKeys key = ApiKeys.forId(apiKey);
        if (key == ApiKeys.API_VERSIONS && !key.isVersionSupported(version)) {
            // KIP-511: answer with a v0 body, whatever the version, so the client can pick one it knows.
            ApiVersionsResponseData body = ClusterHandler.apiVersions().setErrorCode(Errors.UNSUPPORTED_VERSION.code());
            return CompletableFuture.completedFuture(new Reply(Responses.frame(correlationId, (short) 0, body, (short) 0),
                    false));
        }
        RequestHeader header = header(buffer, key, version);
        if (!key.isVersionSupported(version)) {
            return legacy(session, key, version, correlationId, buffer, header);
        }
        AbstractRequest request = parse(buffer, key, version, header);
        return dispatch(new Request(header, request, session), correlationId);
    }

    private static RequestHeader header(ByteBuffer buffer, ApiKeys key, short version) {
        try {
            return RequestHeader.parse(buffer);
        } catch (RuntimeException e) {
            throw new Unanswerable("malformed request header of " + key + " v" + version + ": " + e.getMessage(), e);
        }
    }

    private static AbstractRequest parse(ByteBuffer buffer, ApiKeys key, short version, RequestHeader header) {
        try {
            return AbstractRequest.parseRequest(key, version, new ByteBufferAccessor(buffer)).request;
        } catch (RuntimeException e) {
            throw new Unanswerable("malformed " + key + " v" + version + " request from client '" + header.clientId()
                    + "': " + e.getMessage(), e);
        }
    }

    /** Versions below kafka-clients' parsers: the two advertised ones by hand, the rest cannot be answered. */
    private CompletableFuture<Reply> legacy(Session session, ApiKeys key, short version, int correlationId,
                                            ByteBuffer body, RequestHeader header) {
        if (!ApiVersionsTable.advertises(key, version)) {
            throw new Unanswerable(key + " v" + version + " is not supported (client '" + header.clientId() + "')", null);
        }
        try {
            if (!mayProceed(session, key)) {
                throw new Unanswerable(key + " v" + version + " before SASL authentication, which this listener requires",
                        null);
            }
            if (key == ApiKeys.LIST_OFFSETS) {
                ClientIdentity identity = new ClientIdentity(header.clientId(), session.username(), session.address());
                return done(LegacyRequests.listOffsetsV0(correlationId, body,
                        (topic, partition, ts) -> offsets.lookup(identity, topic, partition, ts)));
            }
            ByteBuffer answer = LegacyRequests.produceV0(correlationId, version, body);
            return CompletableFuture.completedFuture(Reply.of(answer));
        } catch (IllegalArgumentException e) {
            throw new Unanswerable("malformed " + key + " v" + version + " request: " + e.getMessage(), e);
        }
    }

    /** Whether a request of {@code key} may be handled on this session: SASL comes first unless anonymous is allowed. */
    private boolean mayProceed(Session session, ApiKeys key) {
        return anonymousAllowed || session.isAuthenticated() || key == ApiKeys.API_VERSIONS
                || key == ApiKeys.SASL_HANDSHAKE || key == ApiKeys.SASL_AUTHENTICATE;
    }

    private CompletableFuture<Reply> dispatch(Request request, int correlationId) {
        ApiKeys key = request.key();
        short version = request.version();
        if (!ApiVersionsTable.advertises(key, version)) {
            return answer(request, correlationId, request.body().getErrorResponse(0, Errors.UNSUPPORTED_VERSION.exception()).data());
        }
        if (!mayProceed(request.session(), key)) {
            // As Kafka's SASL listeners do: a client that does not authenticate first is misconfigured.
            throw new Unanswerable(key + " from client '" + request.header().clientId() + "' before SASL authentication,"
                    + " which this listener requires (auth.allow_anonymous = false)", null);
        }
        try {
            return handle(request, correlationId);
        } catch (RuntimeException e) {
            return failed(request, correlationId, e);
        }
    }

    private CompletableFuture<Reply> handle(Request request, int correlationId) {
        Node here = node;
        return switch (request.key()) {
            case API_VERSIONS -> answer(request, correlationId, ClusterHandler.apiVersions());
            case METADATA -> answer(request, correlationId, cluster.metadata(request, here));
            case DESCRIBE_CLUSTER -> answer(request, correlationId, ClusterHandler.describeCluster(here));
            case PRODUCE -> later(request, correlationId, produce.produce(request));
            case INIT_PRODUCER_ID -> answer(request, correlationId, produce.initProducerId(request));
            case FETCH -> fetched(request, correlationId, fetch.fetch(request));
            case LIST_OFFSETS -> answer(request, correlationId, offsets.listOffsets(request));
            case FIND_COORDINATOR -> answer(request, correlationId, groups.findCoordinator(request, here));
            case JOIN_GROUP -> later(request, correlationId, groups.join(request));
            case SYNC_GROUP -> later(request, correlationId, groups.sync(request));
            case HEARTBEAT -> answer(request, correlationId, groups.heartbeat(request));
            case LEAVE_GROUP -> answer(request, correlationId, groups.leave(request));
            case OFFSET_COMMIT -> answer(request, correlationId, groups.commit(request));
            case OFFSET_FETCH -> answer(request, correlationId, groups.fetch(request));
            case DESCRIBE_GROUPS -> answer(request, correlationId, groups.describe(request));
            case LIST_GROUPS -> answer(request, correlationId, groups.list(request));
            case CREATE_TOPICS -> answer(request, correlationId, topicsHandler.createTopics(request));
            case DELETE_TOPICS -> answer(request, correlationId, topicsHandler.deleteTopics(request));
            case DESCRIBE_CONFIGS -> answer(request, correlationId, topicsHandler.describeConfigs(request));
            case SASL_HANDSHAKE -> answer(request, correlationId, sasl.handshake(request));
            case SASL_AUTHENTICATE -> {
                SaslHandler.Outcome outcome = sasl.authenticate(request);
                yield CompletableFuture.completedFuture(new Reply(frame(request, correlationId, outcome.response()),
                        outcome.close()));
            }
            default -> answer(request, correlationId, request.body().getErrorResponse(0,
                    Errors.UNSUPPORTED_VERSION.exception()).data());
        };
    }

    private CompletableFuture<Reply> answer(Request request, int correlationId, ApiMessage body) {
        return done(frame(request, correlationId, body));
    }

    private static CompletableFuture<Reply> done(ByteBuffer frame) {
        return CompletableFuture.completedFuture(Reply.of(frame));
    }

    private static CompletableFuture<Reply> done(ByteBuffer[] frame) {
        return CompletableFuture.completedFuture(new Reply(frame, false));
    }

    /** A response that comes later; null (Produce with acks = 0) sends nothing. */
    private <T extends ApiMessage> CompletableFuture<Reply> later(Request request, int correlationId,
                                                                 CompletableFuture<T> body) {
        return body.handle((response, error) -> {
            if (error != null) {
                return failed(request, correlationId, error).join();
            }
            return response == null ? Reply.NOTHING : new Reply(frame(request, correlationId, response), false);
        });
    }

    /** A fetch's answer, which owns the record buffers its frame refers to until it is sent. */
    private CompletableFuture<Reply> fetched(Request request, int correlationId,
                                             CompletableFuture<FetchHandler.Fetched> fetched) {
        return fetched.handle((answer, error) -> {
            if (error != null) {
                return failed(request, correlationId, error).join();
            }
            try {
                return new Reply(frame(request, correlationId, answer.response()), false, answer.release());
            } catch (RuntimeException e) {
                answer.release().run();
                throw e;
            }
        });
    }

    private ByteBuffer[] frame(Request request, int correlationId, ApiMessage body) {
        try {
            return Responses.frame(correlationId, request.key(), request.version(), body);
        } catch (RuntimeException e) {
            throw new Unanswerable("cannot write the " + request.key() + " v" + request.version() + " response: "
                    + e.getMessage(), e);
        }
    }

    /** A handler failed unexpectedly: logged, and answered with the API's error shape and UNKNOWN_SERVER_ERROR. */
    private CompletableFuture<Reply> failed(Request request, int correlationId, Throwable error) {
        if (error instanceof Unanswerable unanswerable) {
            throw unanswerable;
        }
        failures.error(request.key() + " v" + request.version() + " from client '" + request.header().clientId()
                + "' failed: " + error, error);
        return answer(request, correlationId, request.body().getErrorResponse(0,
                Errors.UNKNOWN_SERVER_ERROR.exception(String.valueOf(error.getMessage()))).data());
    }
}
