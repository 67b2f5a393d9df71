package io.sluice.query.client.internal;

import io.sluice.query.client.ExchangeConsumer;
import java.time.Duration;
import java.util.Objects;

/** Builds a {@link PairConsumer}; what {@link ExchangeConsumer#builder()} returns. */
public final class ConsumerBuilder implements ExchangeConsumer.Builder {

    private String url = ExchangeConsumer.DEFAULT_URL;
    private Duration timeout = ExchangeConsumer.DEFAULT_TIMEOUT;

    @Override
    public ExchangeConsumer.Builder url(String value) {
        this.url = Objects.requireNonNull(value, "url");
        return this;
    }

    @Override
    public ExchangeConsumer.Builder timeout(Duration value) {
        Objects.requireNonNull(value, "timeout");
        if (value.toMillis() < 1 || value.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("timeout must be 1 ms to " + Integer.MAX_VALUE + " ms, was " + value);
        }
        this.timeout = value;
        return this;
    }

    @Override
    public ExchangeConsumer connect() {
        return new PairConsumer(url, (int) timeout.toMillis());
    }
}
