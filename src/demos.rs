//! The six demos: their letters and one-line stories (the header's links,
//! `/demo/:letter`, Compare's pickers).

/// The demos, by letter, with a one-line story each.
pub const DEMOS: [(char, &str); 6] = [
    ('a', "Everyday chat"),
    ('b', "Assistant with memory"),
    ('c', "Skills, progressively disclosed"),
    ('d', "Agent with tools"),
    ('e', "论文审阅 · paper review"),
    ('f', "Long conversation, truncation"),
];

/// Whether a demo of letter `c` exists.
pub fn exists(c: char) -> bool {
    DEMOS.iter().any(|&(d, _)| d == c)
}
