-- Hit ratio and cost per day and model, over rows written by
-- `prompt-inspector traffic FILE|DIR --format jsonl` (the files matched by
-- the glob in read_json_auto; here the variable `rows`, set by run.py).
SELECT
    CAST(to_timestamp("at") AS DATE) AS day,
    model,
    count(*) AS requests,
    sum(cache_read_input_tokens) AS read_tokens,
    sum(cache_creation_input_tokens) AS written_tokens,
    sum(input_tokens) AS uncached,
    round(sum(cache_read_input_tokens) * 1.0
          / nullif(sum(cache_read_input_tokens + cache_creation_input_tokens + input_tokens), 0), 4) AS hit_ratio,
    round(sum(cost_usd), 6) AS cost_usd
FROM rows
GROUP BY ALL
ORDER BY day, model;
