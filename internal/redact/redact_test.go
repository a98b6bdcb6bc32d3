package redact

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

func TestRedactTokens(t *testing.T) {
	f := newFakes()
	for _, tk := range f.tokens() {
		r := red(tk.kind)
		tests := []struct{ name, in, want string }{
			{"alone", tk.tok, r},
			{"at start", tk.tok + " was leaked", r + " was leaked"},
			{"at end", "the key is " + tk.tok, "the key is " + r},
			{"in JSON string", `{"output":"` + tk.tok + `","ok":true}`, `{"output":"` + r + `","ok":true}`},
			{"in Japanese", "鍵は" + tk.tok + "です。", "鍵は" + r + "です。"},
			{"after newline", "line one\n" + tk.tok + "\nline three", "line one\n" + r + "\nline three"},
			{"in parentheses", "(" + tk.tok + ")", "(" + r + ")"},
			{"twice", tk.tok + " " + tk.tok, r + " " + r},
		}
		for _, tt := range tests {
			t.Run(tk.kind+"/"+tt.name, func(t *testing.T) {
				if got := Redact(tt.in); got != tt.want {
					t.Errorf("Redact(%q) = %q; want %q", tt.in, got, tt.want)
				}
			})
		}
	}
}

func TestRedact(t *testing.T) {
	f := newFakes()
	tests := []struct{ name, in, want string }{
		// Key shapes in context.
		{"anthropic wins over openai", "ANTHROPIC_API_KEY " + f.anthropic, "ANTHROPIC_API_KEY " + red(kindAnthropic)},
		{"openai in env assignment", "OPENAI_API_KEY=" + f.openAIProject, "OPENAI_API_KEY=" + red(kindOpenAI)},
		{"github token in git URL as user", "https://" + f.ghp + "@github.com/org/repo.git", "https://" + red(kindGitHub) + "@github.com/org/repo.git"},
		{"github token as URL password", "https://x-access-token:" + f.ghs + "@github.com/org/repo", "https://x-access-token:" + red(kindGitHub) + "@github.com/org/repo"},
		{"aws id and secret from a credentials file",
			"[default]\naws_access_key_id = " + f.akia + "\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
			"[default]\naws_access_key_id = " + red(kindAWS) + "\naws_secret_access_key = " + red(kindAssignment) + "\n"},
		{"aws sts JSON", `{"AccessKeyId": "` + f.asia + `", "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG", "SessionToken": "IQoJb3JpZ2luX2VjEJr"}`,
			`{"AccessKeyId": "` + red(kindAWS) + `", "SecretAccessKey": "` + red(kindAssignment) + `", "SessionToken": "` + red(kindAssignment) + `"}`},
		{"adjacent different tokens", f.ghp + "," + f.akia + ";" + f.google, red(kindGitHub) + "," + red(kindAWS) + ";" + red(kindGoogle)},
		{"token next to Japanese without spaces", "トークン" + f.ghp + "を使う", "トークン" + red(kindGitHub) + "を使う"},
		{"jwt in a query string", "https://example.com/cb?id_token=" + f.jwt + "&state=xyz", "https://example.com/cb?id_token=" + red(kindJWT) + "&state=xyz"},
		{"jwt with empty signature", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0In0.", red(kindJWT)},

		// Private keys.
		{"pem block in the middle", "before\n" + f.pemRSA + "\nafter", "before\n" + red(kindPrivateKey) + "\nafter"},
		{"pem block unterminated", "key:\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nmore", "key:\n" + red(kindPrivateKey)},
		{"pem block in escaped JSON", `{"out":"` + strings.ReplaceAll(f.pemOpenSSH, "\n", `\n`) + `\n"}`, `{"out":"` + red(kindPrivateKey) + `\n"}`},
		{"pem value of a private_key field", `{"private_key": "` + strings.ReplaceAll(f.pemRSA, "\n", `\n`) + `"}`, `{"private_key": "` + red(kindAssignment) + `"}`},
		{"pem header inside an assignment value", "password=x" + f.pemRSA + "\nnext", "password=" + red(kindAssignment) + "\nnext"},
		{"two blocks, the first END line with a trailing space", strings.TrimSuffix(f.pemRSA, "-----") + " " + f.pemOpenSSH + " after", red(kindPrivateKey) + " after"},
		{"blocks sharing dashes", f.pemRSA + f.pemOpenSSH[len("-----"):] + "\nafter", red(kindPrivateKey) + "\nafter"},
		{"block inside a quote that does not close on its line", "api_key:=`\t" + f.pemRSA + "`", "api_key:=`\t" + red(kindPrivateKey) + "`"},
		{"pgp private key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----\nok", red(kindPrivateKey) + "\nok"},

		// Assignments.
		{"password equals", "password=hunter2", "password=" + red(kindAssignment)},
		{"password equals with spaces", "DB_PASSWORD = hunter2 # prod", "DB_PASSWORD = " + red(kindAssignment) + " # prod"},
		{"passwd colon", "passwd: hunter2", "passwd: " + red(kindAssignment)},
		{"yaml double quoted with spaces", `password: "correct horse battery staple"`, `password: "` + red(kindAssignment) + `"`},
		{"single quoted", "client_secret='s3cr3t-v@lue'", "client_secret='" + red(kindAssignment) + "'"},
		{"JSON key", `{"api_key": "abc123", "model": "x"}`, `{"api_key": "` + red(kindAssignment) + `", "model": "x"}`},
		{"JSON key without spaces", `{"access_token":"ya29.a0AfH6SMB"}`, `{"access_token":"` + red(kindAssignment) + `"}`},
		{"escaped JSON inside a JSON string", `{"command":"curl -d '{\"password\":\"hunter2\"}' x"}`, `{"command":"curl -d '{\"password\":\"` + red(kindAssignment) + `\"}' x"}`},
		{"escaped quote one level down", `{"c":"{\"token\":\"a\\\"b\"}"}`, `{"c":"{\"token\":\"` + red(kindAssignment) + `\"}"}`},
		{"env value before a JSON newline escape", `{"command":"export API_KEY=abc123\nls"}`, `{"command":"export API_KEY=` + red(kindAssignment) + `\nls"}`},
		{"apikey", "apikey: Zm9vYmFy", "apikey: " + red(kindAssignment)},
		{"header style key", "X-Api-Key: 0123456789abcdef", "X-Api-Key: " + red(kindAssignment)},
		{"dotted key", "spring.datasource.password=s3cret", "spring.datasource.password=" + red(kindAssignment)},
		{"go short declaration", `token := "abc123"`, `token := "` + red(kindAssignment) + `"`},
		{"comparison with a literal", `if token == "abc123" {`, `if token == "` + red(kindAssignment) + `" {`},
		{"ruby hash rocket", `:password => "hunter2"`, `:password => "` + red(kindAssignment) + `"`},
		{"pass key", "DB_PASS=hunter2", "DB_PASS=" + red(kindAssignment)},
		{"url query", "GET /api?user=bob&access_token=abc123&page=2", "GET /api?user=bob&access_token=" + red(kindAssignment) + "&page=2"},
		{"url query escaped by JSON", `{"url":"/api?token=abc123\u0026page=2"}`, `{"url":"/api?token=` + red(kindAssignment) + `\u0026page=2"}`},
		{"python kwargs", `login(user="bob", password="hunter2")`, `login(user="bob", password="` + red(kindAssignment) + `")`},
		{"unclosed quote", `password: "hunter2`, `password: "` + red(kindAssignment)},
		{"numeric password", "password=123456", "password=" + red(kindAssignment)},
		{"passphrase", "passphrase: my long phrase", "passphrase: " + red(kindAssignment) + " long phrase"},
		{"value that is a token gets its kind", "GITHUB_TOKEN=" + f.ghp, "GITHUB_TOKEN=" + red(kindGitHub)},
		{"quoted value that is a token", `secret = "` + f.akia + `"`, `secret = "` + red(kindAWS) + `"`},

		// Secrets passed to commands.
		{"aws configure set", "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws configure set aws_secret_access_key " + red(kindAssignment)},
		{"aws configure set with profile", "aws configure --profile prod set aws_session_token FwoGZXIvYXdzEJr//abc && echo ok", "aws configure --profile prod set aws_session_token " + red(kindAssignment) + " && echo ok"},
		{"git config", "git config --global github.token 0123abcdef", "git config --global github.token " + red(kindAssignment)},
		{"npm config set", "npm config set //registry.npmjs.org/:_authToken npm_abc123XYZ", "npm config set //registry.npmjs.org/:_authToken " + red(kindAssignment)},
		{"long option", "gh auth login --token abcdef123456", "gh auth login --token " + red(kindArgument)},
		{"long option quoted", `vault login --password "correct horse" -address x`, `vault login --password "` + red(kindArgument) + `" -address x`},
		{"long options", "app --api-key k3y-123 --secret s3cr3t --client-secret=xyz9 --cookie sid=1", "app --api-key " + red(kindArgument) + " --secret " + red(kindArgument) + " --client-secret=" + red(kindAssignment) + " --cookie " + red(kindArgument)},
		{"long option with a token", "tool --token " + f.ghp, "tool --token " + red(kindGitHub)},
		{"docker login -p", "docker login -u bob -p hunter2 registry.example.com", "docker login -u bob -p " + red(kindArgument) + " registry.example.com"},
		{"sudo podman login -p in JSON", `{"command":"sudo /usr/bin/podman login quay.io -u bot -p s3cr3t"}`, `{"command":"sudo /usr/bin/podman login quay.io -u bot -p ` + red(kindArgument) + `"}`},
		{"helm registry login", "helm registry login ghcr.io --username u -p pw123", "helm registry login ghcr.io --username u -p " + red(kindArgument)},
		{"sshpass", "sshpass -p 'hunter 2' ssh root@host", "sshpass -p '" + red(kindArgument) + "' ssh root@host"},
		{"redis-cli -a", "redis-cli -h cache -a s3cretpass ping", "redis-cli -h cache -a " + red(kindArgument) + " ping"},
		{"curl -u", "curl -fsS -u admin:s3cret https://x/api", "curl -fsS -u " + red(kindArgument) + " https://x/api"},
		{"curl --user", `curl --user "bot:p4ss word" https://x/api`, `curl --user "` + red(kindArgument) + `" https://x/api`},
		{"netrc", "machine api.example.com\n  login deploy password hunter2\nmachine x login y password z9", "machine api.example.com\n  login deploy password " + red(kindAssignment) + "\nmachine x login y password " + red(kindAssignment)},
		{"mysql -p", "mysql -u root -pS3cret db", "mysql -u root -p" + red(kindArgument) + " db"},
		{"mysqldump -p after env", "cd /srv && MYSQL_HOST=db mysqldump -uroot -p'S3 cret' app > a.sql", "cd /srv && MYSQL_HOST=db mysqldump -uroot -p'" + red(kindArgument) + "' app > a.sql"},

		// Keys with a secret segment, cookies.
		{"secret key base", "SECRET_KEY_BASE=abc123 rails s", "SECRET_KEY_BASE=" + red(kindAssignment) + " rails s"},
		{"export key", "export STRIPE_KEY=sk_live_abc123", "export STRIPE_KEY=" + red(kindAssignment)},
		{"token with a suffix", "GITHUB_TOKEN_RW=abc123 make release", "GITHUB_TOKEN_RW=" + red(kindAssignment) + " make release"},
		{"inline secret", "FOO_SECRET=x1 BAR_PASSWORD=x2 ./run", "FOO_SECRET=" + red(kindAssignment) + " BAR_PASSWORD=" + red(kindAssignment) + " ./run"},
		{"dotted key", "app.encryption.key: c2VjcmV0", "app.encryption.key: " + red(kindAssignment)},
		{"cookie header", "Cookie: session=abcdef0123; csrftoken=xyz", "Cookie: " + red(kindCookie)},
		{"set-cookie header", "Set-Cookie: sid=31d4d96e407aad42; Path=/; Secure\nnext", "Set-Cookie: " + red(kindCookie) + "\nnext"},
		{"cookie in curl", `curl -H "Cookie: sid=abc; t=1" https://x`, `curl -H "Cookie: ` + red(kindCookie) + `" https://x`},
		{"cookie in JSON", `{"Cookie":"sid=abc; t=1","a":1}`, `{"Cookie":"` + red(kindCookie) + `","a":1}`},
		{"cookie in escaped JSON", `{"out":"Set-Cookie: sid=abc\nok"}`, `{"out":"Set-Cookie: ` + red(kindCookie) + `\nok"}`},
		{"a key after a word with a value that is no word", "the api token: abc123", "the api token: " + red(kindAssignment)},

		// gitleaks' rules, named by their ids.
		{"stripe", "STRIPE=sk_live_4eC39HqLyjWDarjtT1zdp7dc", "STRIPE=[REDACTED:stripe-access-token]"},
		{"gitlab pat in prose", "token glpat-xK9vB2mN4pQ7rS1tU3wY expired", "token [REDACTED:gitlab-pat] expired"},
		{"slack webhook", "curl -X POST https://hooks.slack.com/services/T0ABCDEFG/B0ABCDEFG/aB3dE5fG7hI9jK1lM3nO5pQ7 -d x", "curl -X POST [REDACTED:slack-webhook-url] -d x"},
		{"npm token in an error", "npm ERR! token npm_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5 lacks rights", "npm ERR! token [REDACTED:npm-access-token] lacks rights"},
		{"a scanner kind wins", "NPM_TOKEN=npm_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5", "NPM_TOKEN=[REDACTED:assignment]"},
		{"digitalocean in prose", "the token dop_v1_" + strings.Repeat("a1b2c3d4", 8) + " was revoked", "the token [REDACTED:digitalocean-pat] was revoked"},

		// High-entropy values.
		{"random value", "value qT7vX9pL2mN8rK4sW6yB1cF3hJ5dG0aZ9eR here", "value [REDACTED:high-entropy] here"},
		{"random base64 with padding", "blob: dGhpcyBpcyBhIHRlc3Qgb2YgYmFzZTY0IGVuY29kaW5nIDEyMw== end", "blob: [REDACTED:high-entropy] end"},
		{"random last part of a URL path", "https://discord.com/api/webhooks/1187654321098765432/bLNNu3PwUOCuQaEc6c0su3M2eQIYYU1fmaMwUAn3F/edit", "https://discord.com/api/webhooks/1187654321098765432/[REDACTED:high-entropy]/edit"},
		{"random base64 with slashes", "k wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "k [REDACTED:high-entropy]"},
		{"path with a random temporary folder", "Read /tmp/TestX123456789/abcDEF123ghiJKL456/deb-pro.md now", "Read /tmp/TestX123456789/abcDEF123ghiJKL456/deb-pro.md now"},
		{"path with a random folder under home", "/home/u/TestRun9876543210/x7Yq2Lm9Pz/cc-debate-20260310-100000-ab12-pro.md", "/home/u/TestRun9876543210/x7Yq2Lm9Pz/cc-debate-20260310-100000-ab12-pro.md"},
		{"long random part of a file path", "/home/u/.cache/a8F3kL9mQ2rT5vW7yZ1bC4dE6gH0jK/x.md", "/home/u/.cache/[REDACTED:high-entropy]/x.md"},
		{"token as a part of a path", "see /api/" + f.ghp + "/x now", "see /api/" + red(kindGitHub) + "/x now"},
		{"random value as a part of a path", "/srv/keys/qT7vX9pL2mN8rK4sW6yB1cF3hJ5dG0aZ9eR", "/srv/keys/[REDACTED:high-entropy]"},
		{"base64 secret after =", "X=dGhpcyBpcyBhIHRlc3Qgb2YgYmFzZTY0IGVuY29kaW5nIDEyMw==", "X=[REDACTED:high-entropy]"},
		{"base64 secret starting with a slash", "blob /tmp+K7MDENG/bPxRfiCYEXAMPLEKEYwJalrXUtnFEMI", "blob [REDACTED:high-entropy]"},

		// Authorization and bearer.
		{"authorization bearer", "Authorization: Bearer " + f.bearerB64, "Authorization: Bearer " + red(kindBearer)},
		{"authorization basic in curl", `curl -H "Authorization: Basic ` + f.basic + `" https://api.example.com`, `curl -H "Authorization: Basic ` + red(kindBearer) + `" https://api.example.com`},
		{"authorization token scheme", "authorization: token " + f.ghp, "authorization: token " + red(kindGitHub)},
		{"authorization without scheme", "Authorization: " + f.bearerHex, "Authorization: " + red(kindBearer)},
		{"authorization in JSON headers", `{"headers":{"Authorization":"Bearer ` + f.bearerHex + `"}}`, `{"headers":{"Authorization":"Bearer ` + red(kindBearer) + `"}}`},
		{"proxy authorization", "Proxy-Authorization: Basic " + f.basic, "Proxy-Authorization: Basic " + red(kindBearer)},
		{"bare bearer", "use Bearer " + f.bearerHex + " for the call", "use Bearer " + red(kindBearer) + " for the call"},
		{"bare bearer with jwt", "bearer " + f.jwt, "bearer " + red(kindJWT)},
		{"bare bearer mixed case letters only", "Bearer AbCDeFGhijKLmnoPQr", "Bearer " + red(kindBearer)},

		// URLs.
		{"url password", "postgres://admin:s3cr3t@db.internal:5432/app", "postgres://admin:" + red(kindURLPassword) + "@db.internal:5432/app"},
		{"url password with empty user", "redis://:s3cr3t@cache:6379/0", "redis://:" + red(kindURLPassword) + "@cache:6379/0"},
		{"url with a token as user and as password", "https://" + f.jwt + ":" + f.jwt[:30] + "@host/x", "https://" + red(kindJWT) + ":" + red(kindURLPassword) + "@host/x"},
		{"url with a token as user and a password", "https://" + f.ghp + ":s3cr3t@host/x", "https://" + red(kindGitHub) + ":" + red(kindURLPassword) + "@host/x"},
		{"url password with @ in it", "https://bob:p@ss@host/x", "https://bob:" + red(kindURLPassword) + "@host/x"},

		// Private spans.
		{"private span", "a<private>my home address</private>b", "ab"},
		{"private span any case", "a<PRIVATE>x</Private>b", "ab"},
		{"private unterminated", "keep <private>drop all of this", "keep "},
		{"private spans twice", "1<private>x</private>2<private>y</private>3", "123"},
		{"private tag joined by removal", "<pri<private>x</private>vate>secret</private>z", "z"},
		{"private tag joined twice", "<pr<pri<private>a</private>vate>b</private>ivate>c</private>d", "d"},
		{"secret joined by removal", f.ghp[:20] + "<private>x</private>" + f.ghp[20:], red(kindGitHub)},
		{"private inside Japanese", "住所は<private>東京都</private>です", "住所はです"},
		{"stray closing tag stays", "a</private>b", "a</private>b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Redact(tt.in)
			if got != tt.want {
				t.Errorf("Redact(%q) = %q; want %q", tt.in, got, tt.want)
			}
			if again := Redact(got); again != got {
				t.Errorf("Redact(Redact(%q)) = %q; want %q", tt.in, again, got)
			}
		})
	}
}

func TestRedactLeavesNearMisses(t *testing.T) {
	tests := []struct{ name, in string }{
		{"sk-learn", "pip install sk-learn; sklearn is scikit-learn"},
		{"sk kebab words", "see sk-learn-compat-0-24-release-notes-draft for details"},
		{"sk inside a word", "disk-usage-monitoring-service-v2-rollout-Q3x9"},
		{"task ids", "task-1 task-2 ask-ant-colony"},
		{"ghp prefix alone", "ghp_ and gho_ prefixes; ghp_short123"},
		{"github_pat prefix alone", "github_pat_ tokens start like this: github_pat_11ABC"},
		{"AKIA in prose", "AKIA is the prefix of AWS access key ids; AKIAIOSFODNN7EXAMPL is one short"},
		{"AKIA too long", "AKIAIOSFODNN7EXAMPLEX"},
		{"AIza short", "AIzaTooShort"},
		{"xox", "xoxo gossip; xoxb- prefix; xoxb-abcdefghijklmno"},
		{"eyJ alone", "eyJ"},
		{"jwt header alone", "eyJhbGciOiJIUzI1NiJ9 is a header"},
		{"jwt without payload ey", "eyJhbGciOiJIUzI1NiJ9.abcdefghijklmnop.sig"},
		{"password as a word", "Enter your password to continue. Passwords must be long."},
		{"password prompt with nothing after", "Password: \nToken:\n"},
		{"empty token", `token: ""`},
		{"tokenizer", "tokenizer = x\ntokenizer: AutoTokenizer"},
		{"max tokens", `{"max_tokens": 1024, "input_tokens": 5, "token_count": 7}`},
		{"pwd", "PWD=/home/user\nOLDPWD=/tmp"},
		{"bypass", "bypass=true; compass=north"},
		{"primary key", "primary_key = id\nsort_key: ts"},
		{"bearer in a sentence", "the bearer of bad news; Bearer tokens are described in RFC 6750"},
		{"bearer lowercase words", "Bearer authenticationscheme"},
		{"bearer placeholder", "Authorization: Bearer $TOKEN\nAuthorization: Bearer ${TOKEN}\nAuthorization: Bearer <token>"},
		{"bearer scheme only", "Authorization: Bearer\n"},
		{"bearer upper-case placeholder", "Bearer YOUR_API_KEY_HERE_PLEASE"},
		{"token type field", `{"token_type": "bearer", "scope": "repo"}`},
		{"go struct literal", "cfg := Config{\n\tPassword: password,\n\tToken:    token,\n}"},
		{"go getenv", `token := os.Getenv("GITHUB_TOKEN")`},
		{"python attribute", "password = self.password\nsecret = settings.SECRET"},
		{"python call", "password = getpass.getpass()"},
		{"nil check", "if token == nil {\n\treturn\n}"},
		{"type annotations", "token: string;\npassword: str = None\nsecret: Optional[str]"},
		{"index", "token = tokens[0]"},
		{"js await and new", "const token = await getToken();\nlet secret = new Secret(name);"},
		{"python signature", "def login(user: str, password: str) -> bool:"},
		{"shell command substitution", "PASSWORD=$(cat ~/.pgpass)"},
		{"template", "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\nAPI_KEY: {{ .Values.apiKey }}\npassword=%s"},
		{"placeholder", "api_key=<your-api-key>\npassword: ********"},
		{"scope operator", "let t = Token::new();"},
		{"certificate", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
		{"public key", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----"},
		{"url without password", "https://example.com:8443/path?q=1 git@github.com:org/repo.git"},
		{"url with user only", "ssh://git@github.com/org/repo"},
		{"markdown rule", "---\n- item\n-----\n"},
		{"Japanese prose", "パスワードを入力してください。トークンの有効期限は30日です。"},
		{"secrets as a word", "secrets: inherit\nsecret_name: prod-db"},
		{"kind Secret", "kind: Secret\nmetadata:"},
		{"checksums", "github.com/x/y v1.2.3 h1:gOb8E2sNvpNq7kU1ZfNq4T1n6W0Pj5w3bNxzZb5JZ0s=\n\"integrity\": \"sha512-Qd3zBv7kU1ZfNq4T1n6W0Pj5w3bNxzZb5JZ0sgOb8E2sNvpN==\"\n256 SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 ada@host"},
		{"identifiers and paths made of words", "--- PASS: TestRedactReturnsInputWithoutAllocating2 (0.00s)\n/home/User/Downloads/Report2024FinalVersion/x\nKubernetes1Cluster2Node3Pool"},
		{"hex and uuids", "commit 3f2a9c1e7b4d4e8a9f0c2d1b6a5e8c7f12345678 3f2a9c1e-7b4d-4e8a-9f0c-2d1b6a5e8c7f"},
		{"public key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq5zYxWvUtSrQpOnMlKjIhGfEdCbA9876543210zyx ada@host"},
		{"data URI", `<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">`},
		{"object ids", `{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","content":[{"type":"tool_use","id":"toolu_01A2B3C4D5E6F7G8H9J0K1L2M3"}]} request-id: req_011CVbJmqn3VZL8M1q4j2aBc chatcmpl-8xYz1AbCdEfGhIjKlMnOpQrStUv evt_1NG8Du2eZvKYlo2CYGjlgqLd`},
		{"masked token", "  - Token: gho_************************************"},
		{"kubectl describe secret", "password:  24 bytes\nusername:  3 bytes"},
		{"go test output", "--- PASS: TestAppend (0.01s)\n--- FAIL: TestResume (0.02s)"},
		{"token in a sentence", "find a GitHub token: no token in the env; the password: none was set"},
		{"option in a sentence", "pass the --token flag or --password option; use --api-key instead"},
		{"option followed by an option", "login --token --verbose"},
		{"option placeholder", `gh auth login --token "$GH_TOKEN" --secret ${SECRET}`},
		{"options that are no secret", "--token-file ~/.tok --password-stdin --tokens 5 --secret-name prod"},
		{"-p elsewhere", "docker run -p 8080:80 img; ssh -p 22 host; psql -p 5432; mysql -p db; cp -a x y"},
		{"login elsewhere", "docker login -u bob --password-stdin; gh auth login --with-token; login password: none"},
		{"-u elsewhere", "sort -u names.txt; git push -u origin main; docker run -u 1000 img; curl -u $CREDS https://x"},
		{"--user elsewhere", "pip install --user requests; npm config set user x"},
		{"-a elsewhere", "git commit -a -m msg; ls -a"},
		{"branch named by a time", "Preparing worktree (new branch 'baton/5-20261201T122934Z'); git push origin baton/20261201T122934Z-a1b2c3"},
		{"keys that name properties", "TOKEN_TYPE=bearer\nSECRET_NAME=prod-db\nPASSWORD_MIN_LENGTH=12\nGITHUB_TOKEN_PATH=/run/tok\nTOKEN_URL=https://x/t"},
		{"keys that are no secrets", "PRIMARY_KEY=id\nSORT_KEY=ts\nPUBLIC_KEY=abc\npartition-key: pk"},
		{"key file", "SSH_KEY=~/.ssh/id_ed25519\nTLS_KEY=/etc/ssl/private/tls.key"},
		{"config without a secret", "git config --global user.name Bob\naws configure set region eu-west-1"},
		{"cookie in code", "cookie := r.Cookie(\"sid\")\ncookie = request.cookies.get(\"sid\")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Redact(tt.in); got != tt.in {
				t.Errorf("Redact(%q) = %q; want it unchanged", tt.in, got)
			}
		})
	}
}

// TestRedactKeepsJSONValid checks that replacements inside JSON strings
// stop at the closing quote, so a redacted JSON document still parses.
func TestRedactKeepsJSONValid(t *testing.T) {
	f := newFakes()
	tests := []struct {
		name string
		doc  any
	}{
		{"hook record", map[string]any{
			"tool_input": map[string]any{"command": "curl -H 'Authorization: Bearer " + f.bearerHex + "' https://u:pw@api.example.com/?token=abc&x=1"},
			"env":        "GITHUB_TOKEN=" + f.ghp + "\nPASSWORD=hunter2",
		}},
		{"nested JSON in a string", map[string]any{"body": `{"password":"hunter2","api_key":"` + f.google + `"}`}},
		{"key block", map[string]any{"stdout": "key:\n" + f.pemRSA + "\ndone", "private_key": f.pemOpenSSH}},
		{"tokens in an array", []any{f.anthropic, f.jwt, f.akia, f.slackBot, "password: 'x y'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := json.Marshal(tt.doc)
			if err != nil {
				t.Fatal(err)
			}
			got := Redact(string(in))
			for _, secret := range []string{"hunter2", "pw@", "x y", f.bearerHex, f.ghp, f.google, f.anthropic, f.jwt, f.akia, f.slackBot, f.pemRSA[40:80], f.pemOpenSSH[40:80]} {
				if strings.Contains(got, secret) {
					t.Errorf("Redact(%s) = %s; want no %q", in, got, secret)
				}
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("Redact(%s) = %s; want valid JSON", in, got)
			}
		})
	}
}

func TestRedactReturnsInputWithoutAllocating(t *testing.T) {
	for _, in := range []string{
		strings.Repeat(`{"ts":"2026-01-02T03:04:05Z","tool":"Bash","desc":"go test ./... で確認","cwd":"/home/u/src/baton"}`+"\n", 3),
		// Keywords of gitleaks' rules, whose expressions then run.
		`{"ts":"2026-01-02T03:04:05Z","tool":"Bash","desc":"go test -skip TestSlow ./... && heroku logs --tail | grep sentry","cwd":"/home/u/src/baton"}`,
	} {
		got := Redact(in)
		if unsafe.StringData(got) != unsafe.StringData(in) {
			t.Errorf("Redact(%q) returned a copy of text with nothing to redact; want the same string", in)
		}
		if n := testing.AllocsPerRun(100, func() { Redact(in) }); n != 0 {
			t.Errorf("Redact(%q) allocated %v times on text with nothing to redact; want 0", in, n)
		}
	}
}

func TestRedactInvalidUTF8(t *testing.T) {
	f := newFakes()
	tests := []struct{ name, in, want string }{
		{"bytes kept", "\xff\xfe abc \xc3", "\xff\xfe abc \xc3"},
		{"token after invalid byte", "\xff" + f.ghp + "\xfe", "\xff" + red(kindGitHub) + "\xfe"},
		{"truncated rune before key", "\xe3\x81password=x", "\xe3\x81password=" + red(kindAssignment)},
		{"private after invalid bytes", "\x80<private>\xff</private>\x80", "\x80\x80"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestRedactTruncatedInputs cuts every sample at every byte, which drives each
// rule into the end of the text at every step of its match.
func TestRedactTruncatedInputs(t *testing.T) {
	f := newFakes()
	samples := []string{
		`{"Authorization":"Bearer ` + f.bearerHex + `"}`,
		`{"c":"{\"token\":\"a\\\"b\"}"}`,
		"postgres://admin:s3cr3t@db:5432/app",
		f.pemRSA,
		"a<private>b</private>c",
		f.jwt,
		f.slackBot,
		f.anthropic,
		f.akia,
	}
	for _, s := range samples {
		for i := range len(s) + 1 {
			in := s[:i]
			got := Redact(in)
			if again := Redact(got); again != got {
				t.Fatalf("Redact(Redact(%q)) = %q; want %q", in, again, got)
			}
		}
	}
}

// maxGrowth is the most one replacement can add: the longest marker (a
// gitleaks rule id may be the longest kind) replacing a single byte.
var maxGrowth = func() int {
	n := len(kindURLPassword)
	for _, r := range gitleaksRules {
		n = max(n, len(r.id))
	}
	return len(marker) + n + len("]") - 1
}()

func FuzzRedact(f *testing.F) {
	fk := newFakes()
	toks := fk.tokens()
	for _, s := range []string{
		"",
		"plain text",
		`{"tool":"Bash","tool_input":{"command":"export TOKEN=abc123 && curl -H \"Authorization: Bearer x\""}}`,
		"password=hunter2 <private>x</private> https://u:p@h/",
		"<pri<private>a</private>vate>b",
		"-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
		"sk-sk-sk-ant-eyJ.eyJ.x xoxb-1 AKIA AIza ghp_ github_pat_",
		"トークン: 秘密 \xff\xfe",
		`{\"token\":\"a\\\"b\"}`,
		"Bearer abcdefghIJKLMNOP1 bearer",
		fk.jwt + " " + fk.slackBot,
		"xoxa-AA000000", // a short span under a long gitleaks rule id
		"the db password is Tr0ub4dor&3xyzQ; login: admin / P@ssw0rd!2024",
		"パスワードは「Yuki#Snow42」です。APIキーは 8f14e45fceea167a5a36dedd4bea2543 です",
		`{"command": "I ran curl -u admin:Adm1nPa55word and mysql -pMyS3cretPw99 shop"}`,
	} {
		f.Add(s, uint(len(s)/2), uint8(len(s)))
	}
	f.Fuzz(func(t *testing.T, s string, pos uint, which uint8) {
		got := Redact(s)
		if again := Redact(got); again != got {
			t.Fatalf("Redact(Redact(%q)) = %q; want %q", s, again, got)
		}
		if strings.Contains(asciiLower(got), privateOpen) {
			t.Fatalf("Redact(%q) = %q; want no %s tag", s, got, privateOpen)
		}
		if limit := len(s) + maxGrowth*strings.Count(got, marker); len(got) > limit {
			t.Fatalf("Redact(%q) is %d bytes; want at most %d", s, len(got), limit)
		}

		tk := toks[int(which)%len(toks)]
		p := int(pos % uint(len(s)+1))
		in := s[:p] + " " + tk.tok + " " + s[p:]
		out := Redact(in)
		for _, piece := range secretPieces(tk.tok) {
			if strings.Contains(out, piece) && !strings.Contains(s, piece) {
				t.Fatalf("Redact(%q) = %q; want no %q from the embedded secret", in, out, piece)
			}
		}
	})
}

// secretPieces returns parts of a fake secret that must not survive: the whole
// secret, its middle and its end, and each line of a key block's body.
func secretPieces(tok string) []string {
	if lines := strings.Split(tok, "\n"); len(lines) > 2 {
		return append([]string{tok}, lines[1:len(lines)-1]...)
	}
	n := len(tok)
	return []string{tok, tok[n/2-8 : n/2+8], tok[n-16:]}
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lower(c)
	}
	return string(b)
}

// TestRedactFragmentCombinations runs the fuzz properties over text glued
// together from pieces that each rule reacts to, which reaches the places
// where rules meet (a key block inside a quoted value, a token in a URL's
// user part, a replacement joining two lines) far sooner than random bytes.
func TestRedactFragmentCombinations(t *testing.T) {
	f := newFakes()
	toks := f.tokens()
	frags := []string{
		f.ghp, f.anthropic, f.akia, f.jwt, f.slackBot, f.google, f.pemRSA, f.pemOpenSSH, f.bearerHex,
		f.ghp[:10], f.ghp[10:], f.jwt[:30], f.anthropic[:12],
		"password", "token", "Authorization", "secret", "api_key", "pass", "max_tokens", "tokenizer",
		"Authorization: ", "X-Api-Key: ", "DB_PASS=", `password: "`, "Token::",
		"=", ":", ":=", "==", "=>", " ", "  ", "\t", "\n", "\r\n", `"`, "'", "`", `\"`, `\\`, `\`, `\n`, `\u0026`,
		"<private>", "</private>", "<pri", "vate>", "<PRIVATE>", "Bearer ", "bearer", "Basic ",
		"https://", "://", "@", "/", "?", "&", ",", ";", "(", ")", "[", "]", "{", "}", "$", "*", "%", "|", "#", "!", "<", ">",
		"-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "-----BEGIN ", "PRIVATE KEY", "-----",
		"[REDACTED:", "[REDACTED:github]", "eyJ", "ey", "sk-", "sk-proj-", "ant-", "ghp_", "gho_", "github_pat_",
		"AKIA", "ASIA", "AIza", "xoxb-", "xapp-",
		"sk_live_", "glpat-", "npm_", "dop_v1_", "hvs.", "SG.", "heroku", "curl ", "-u ", "-p ", "-a ", "--token ",
		"docker login ", "redis-cli ", "mysql ", "aws configure set ", "git config ", "Cookie: ", "<password>", "</password>",
		"login ", " login deploy password ", "password ", "machine x ",
		"SECRET_KEY_BASE=", "STRIPE_KEY=", "API key: ", "qT7vX9pL2mN8rK4sW6yB1cF3hJ5dG0aZ9eR", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"abc", "123", "ABCdef456", "ABCDEFGHIJKLMNOP", "abcdefghijklmnopq", "0123456789",
		"null", "self.x", "f(", "a.b", "x", "_", "-", ".", "鍵", "\xff",
	}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	g := rand.New(rand.NewPCG(5, 6))
	for range n {
		var b strings.Builder
		for range 1 + g.IntN(24) {
			b.WriteString(frags[g.IntN(len(frags))])
		}
		s := b.String()
		got := Redact(s)
		if again := Redact(got); again != got {
			t.Fatalf("Redact(Redact(%q)) = %q; want %q", s, again, got)
		}
		if strings.Contains(asciiLower(got), privateOpen) {
			t.Fatalf("Redact(%q) = %q; want no %s tag", s, got, privateOpen)
		}
		tk := toks[g.IntN(len(toks))]
		p := g.IntN(len(s) + 1)
		in := s[:p] + " " + tk.tok + " " + s[p:]
		out := Redact(in)
		for _, piece := range secretPieces(tk.tok) {
			if strings.Contains(out, piece) && !strings.Contains(s, piece) {
				t.Fatalf("Redact(%q) = %q; want no %q from the embedded secret", in, out, piece)
			}
		}
	}
}
