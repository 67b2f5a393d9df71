package io.sluice.server.http;

/**
 * {@code GET /api/v4/configuration}: the configuration in force, as validated at start-up, with
 * every secret masked ({@link ConfigView}).
 */
public final class ConfigurationEndpoint implements Endpoint {
    private final Object view;

    /** @param config the validated configuration (a record); viewed once, since it never changes */
    public ConfigurationEndpoint(Object config) {
        this.view = ConfigView.of(config);
    }

    @Override
    public Reply handle(ApiRequest request) {
        return Reply.data(view);
    }
}
