package io.sluice.kafka.testing;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.RequestUtils;

/**
 * A Kafka connection at the wire level, for what no client library sends on purpose: old and
 * unknown versions, unadvertised APIs, malformed frames, exact retries.
 */
public final class RawKafka implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private int correlationId;

    public RawKafka(String bootstrap) throws IOException {
        int colon = bootstrap.lastIndexOf(':');
        socket = new Socket();
        socket.connect(new InetSocketAddress(bootstrap.substring(0, colon), Integer.parseInt(bootstrap.substring(colon + 1))),
                5_000);
        socket.setSoTimeout(15_000);
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
    }

    /** The request frame (without the size) of {@code data} at {@code version}. */
    public byte[] request(ApiKeys key, short version, ApiMessage data) {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(key.id).setRequestApiVersion(version)
                .setCorrelationId(++correlationId).setClientId("raw-test");
        ByteBuffer frame = RequestUtils.serialize(header, key.requestHeaderVersion(version), data, version);
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        return bytes;
    }

    /** Sends a request and returns the response body, its header read and checked. */
    public ByteBufferAccessor call(ApiKeys key, short version, ApiMessage data) throws IOException {
        byte[] frame = request(key, version, data);
        send(frame);
        return response(key.responseHeaderVersion(version), correlationId);
    }

    /** Sends bytes as one frame: an int32 size, then the bytes. */
    public void send(byte[] frame) throws IOException {
        out.writeInt(frame.length);
        out.write(frame);
        out.flush();
    }

    /** Writes bytes as they are, no size added. */
    public void write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The next response's body, after checking its correlation id. */
    public ByteBufferAccessor response(short headerVersion, int expectedCorrelationId) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(frame());
        ByteBufferAccessor accessor = new ByteBufferAccessor(buffer);
        ResponseHeaderData header = new ResponseHeaderData(accessor, headerVersion);
        if (header.correlationId() != expectedCorrelationId) {
            throw new IOException("correlation id " + header.correlationId() + ", expected " + expectedCorrelationId);
        }
        return accessor;
    }

    /** The next response frame, size removed. */
    public byte[] frame() throws IOException {
        int size = in.readInt();
        byte[] bytes = new byte[size];
        in.readFully(bytes);
        return bytes;
    }

    public int lastCorrelationId() {
        return correlationId;
    }

    /** Whether the server closed the connection (reading sees the end of the stream). */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** Whether no response arrives within {@code millis}. */
    public boolean silentFor(int millis) throws IOException {
        int before = socket.getSoTimeout();
        socket.setSoTimeout(millis);
        try {
            in.readInt();
            return false;
        } catch (SocketTimeoutException e) {
            return true;
        } catch (EOFException e) {
            return false;
        } finally {
            socket.setSoTimeout(before);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
