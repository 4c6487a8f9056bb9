-- The prompt changes that caused the most rewrites: requests whose prefix
-- changed, by the first position that differs.
SELECT
    first_difference,
    count(*) AS requests,
    sum(cache_creation_input_tokens) AS written_again,
    round(sum(cost_usd), 6) AS cost_usd
FROM rows
WHERE miss_kind IN ('prefix', 'tools')
GROUP BY ALL
ORDER BY written_again DESC;
