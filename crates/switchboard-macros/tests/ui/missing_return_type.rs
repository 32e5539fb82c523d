use switchboard_server::prompt;

#[prompt]
async fn review(code: String) {
    let _ = code;
}

fn main() {}
