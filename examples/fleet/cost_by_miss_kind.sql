-- What each kind of write or miss cost, and how many requests it hit.
SELECT
    coalesce(miss_kind, 'read only') AS kind,
    count(*) AS requests,
    sum(cache_creation_input_tokens) AS written,
    round(sum(cost_usd), 6) AS cost_usd
FROM rows
GROUP BY ALL
ORDER BY cost_usd DESC;
