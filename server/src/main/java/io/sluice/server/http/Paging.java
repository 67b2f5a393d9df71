package io.sluice.server.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * EMQX's paging of lists: {@code ?page=} (from 1) and {@code ?limit=} (default 100, at most
 * 10000), answered with {@code meta {page, limit, count, hasnext}} beside the data.
 *
 * @param page  the page asked for, from 1
 * @param limit items per page
 */
public record Paging(int page, int limit) {
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 10_000;

    /** The paging a request asks for; 400 naming the parameter if it is not a number in range. */
    public static Paging of(ApiRequest request) throws ApiException {
        int page = (int) request.longQuery("page", 1, 1, Integer.MAX_VALUE / MAX_LIMIT);
        int limit = (int) request.longQuery("limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
        return new Paging(page, limit);
    }

    /** The page of {@code all}, each item shown by {@code view}, with its meta. */
    public <T> Reply reply(List<T> all, Function<T, Object> view) {
        int from = Math.min(all.size(), (page - 1) * limit);
        int to = Math.min(all.size(), from + limit);
        List<Object> data = new ArrayList<>(to - from);
        for (T item : all.subList(from, to)) {
            data.add(view.apply(item));
        }
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("page", page);
        meta.put("limit", limit);
        meta.put("count", all.size());
        meta.put("hasnext", to < all.size());
        return Reply.page(data, meta);
    }
}
