package io.sluice.server.http;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code POST /api/v4/reload}: re-reads what SIGHUP re-reads (the password file, the ACL file,
 * the TLS certificates) and answers which those are; {@code GET} lists them without reloading.
 * A file that cannot be used is refused in the log and the previous contents stay in force.
 */
public final class ReloadEndpoint {
    private final Runnable reload;
    private final Supplier<List<String>> targets;

    /**
     * @param reload  what SIGHUP runs: reloads every target soon, on the reload thread
     * @param targets what is reloaded, for the answer
     */
    public ReloadEndpoint(Runnable reload, Supplier<List<String>> targets) {
        this.reload = reload;
        this.targets = targets;
    }

    public Reply reload(ApiRequest request) {
        reload.run();
        return Reply.data(Map.of("reloading", targets.get()));
    }

    public Reply list(ApiRequest request) {
        return Reply.data(Map.of("reloadable", targets.get()));
    }
}
