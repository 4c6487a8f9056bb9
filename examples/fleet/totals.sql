-- The totals `traffic` prints, from the rows (tests/fleet.rs compares them).
SELECT
    count(*) AS requests,
    sum(input_tokens) AS input_tokens,
    sum(cache_creation_input_tokens) AS cache_creation_input_tokens,
    sum(cache_read_input_tokens) AS cache_read_input_tokens,
    sum(output_tokens) AS output_tokens,
    round(sum(cost_usd), 6) AS cost_usd
FROM rows;
