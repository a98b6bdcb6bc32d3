package redact

import (
	"strings"
	"testing"
)

func TestRedactProse(t *testing.T) {
	pw, key := red(kindPassword), red(kindKey)
	tests := []struct{ name, in, want string }{
		{"password is", "the db password is Tr0ub4dor&3xyzQ", "the db password is " + pw},
		{"password is now", "The root password is now Xk9#mPq2vL on all boxes.", "The root password is now " + pw + " on all boxes."},
		{"password for … is", "the password for admin@example.com is Mail#Box9921", "the password for admin@example.com is " + pw},
		{"password to", "I changed the password to N3wPassw0rd! yesterday", "I changed the password to " + pw + " yesterday"},
		{"password was, then punctuation", "My password was hunter2hunter2, sorry.", "My password was " + pw + ", sorry."},
		{"password's", "the mailbox password's Mailb0x-Shared! btw", "the mailbox password's " + pw + " btw"},
		{"password you need is", "the password you need is Gr33nLantern$, ok", "the password you need is " + pw + ", ok"},
		{"pw:", "PW: Qw3rty!Zx (vpn)", "PW: " + pw + " (vpn)"},
		{"quoted", `the password is "correct horse 42" ok`, `the password is "` + pw + `" ok`},
		{"bare", "Use the passphrase Batt3ry$Staple to unlock it.", "Use the passphrase " + pw + " to unlock it."},
		{"in a JSON string", `{"prompt":"the password is Tr0ub4dor&3xyzQ"}`, `{"prompt":"the password is ` + pw + `"}`},
		{"key is", "The API key is 8f14e45fceea167a5a36dedd4bea2543 for staging", "The API key is " + key + " for staging"},
		{"token was", "the bot token was 5ba9d0f2c7e14a3b8d6f until", "the bot token was " + key + " until"},
		{"a rule's kind wins", "the token is glpat-xK9vB2mN4pQ7rS1tU3wY now", "the token is [REDACTED:gitlab-pat] now"},
		{"login pair", "login: admin / P@ssw0rd!2024", "login: admin / " + pw},
		{"login pair with a slash", "Jenkins login is admin/Jenk1ns#Adm", "Jenkins login is admin/" + pw},
		{"login pair with a colon", "log in with root:T00r!Box first", "log in with root:" + pw + " first"},
		{"ja password", "パスワードは Tr0ub4dor&3xyzQ です", "パスワードは " + pw + " です"},
		{"ja password, no space", "管理者パスワードはKanri!Pass9です", "管理者パスワードは" + pw + "です"},
		{"ja full-width colon", "パスワード：Hikari2026!", "パスワード：" + pw},
		{"ja quotes", "パスワードは「Yuki#Snow42」です", "パスワードは「" + pw + "」です"},
		{"ja after words", "パスワードを聞かれたら Kotae9Pass! と入力", "パスワードを聞かれたら " + pw + " と入力"},
		{"ja key", "APIキーは 8f14e45fceea167a5a36dedd4bea2543 です", "APIキーは " + key + " です"},
		{"ja login pair", "ログイン情報は user01 / Pass0rd!jp です", "ログイン情報は user01 / " + pw + " です"},

		// Commands inside sentences and JSON of either spacing.
		{"curl -u in a sentence", "I ran curl -u admin:Adm1nPa55word against jenkins", "I ran curl -u " + red(kindArgument) + " against jenkins"},
		{"mysql -p after run:", "run: mysql -u root -pMyS3cretPw99 shop", "run: mysql -u root -p" + red(kindArgument) + " shop"},
		{"docker login in a sentence", "Run docker login -u ci -p Reg1stry#Pass reg.example.com now", "Run docker login -u ci -p " + red(kindArgument) + " reg.example.com now"},
		{"sshpass attached", "then sshpass -pAttached9Pw ssh pi@host", "then sshpass -p" + red(kindArgument) + " ssh pi@host"},
		{"-p quoted, any command", "pass -p'Pa$$w0rd#77' to it", "pass -p'" + red(kindArgument) + "' to it"},
		{"-u user:password, any command", "authenticate with -u admin:S3cretAdm9 here", "authenticate with -u admin:" + pw + " here"},
		{"command in spaced JSON", `{"command": "mysql -u root -pMyS3cretPw99 shop"}`, `{"command": "mysql -u root -p` + red(kindArgument) + ` shop"}`},
		{"command after a spaced comma", `{"a": 1, "command": "redis-cli -a R3d1sAuth99 ping"}`, `{"a": 1, "command": "redis-cli -a ` + red(kindArgument) + ` ping"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Redact(tt.in)
			if got != tt.want {
				t.Errorf("Redact(%q) = %q; want %q", tt.in, got, tt.want)
			}
			if again := Redact(got); again != got {
				t.Errorf("Redact(%q) = %q; want it unchanged", got, again)
			}
		})
	}
}

func TestRedactProseLeavesNearMisses(t *testing.T) {
	for _, in := range []string{
		"the password field is required",
		"password reset flow is broken",
		"The password is at least 12 characters long.",
		"The password you entered is incorrect.",
		"the password's length is checked on the server",
		"the password is in 1Password under staging",
		"password hashing uses argon2id",
		"$ docker run -e POSTGRES_PASSWORD=$POSTGRES_PASSWORD postgres:16",
		"login / logout buttons",
		"login at 10:30 tomorrow",
		"login page / dashboard redesign",
		"key is pressed twice",
		"The key is Ctrl+Shift+P on Linux.",
		"the primary key is 3f2a9c1e-7b4d-4e8a-9f0c-2d1b6a5e8c7f",
		"The key is ~/.ssh/id_ed25519, not the RSA one.",
		"fixed in 8f14e45",
		"upgrade to v1.4.2-rc.1 before Friday",
		"password := cfg.Password",
		"docker run -u 1000:1000 -u app:app -u www-data:www-data img",
		"docker run -p 8080:80 nginx",
		`{"command": "pass --password-stdin to docker login instead of -p", "description": "x"}`,
		`const sessionCookie = "baton_session"`,
		"パスワードは8文字以上で、記号を含めてください。",
		"パスワードは 1Password に保存してあります。",
		"パスワードポリシーは NIST SP 800-63B に準拠しています。",
		"APIキーは環境変数 OPENAI_API_KEY から読みます。",
		"ログイン / ログアウトのボタン",
	} {
		if got := Redact(in); got != in {
			t.Errorf("Redact(%q) = %q; want it unchanged", in, got)
		}
	}
}

// TestNamingTables keeps the quick tests of find in step with the naming
// words: each word's first letters pass them, and nothing else does.
func TestNamingTables(t *testing.T) {
	pairs := map[string]bool{}
	for _, w := range namingWords {
		if !namingPair(w.text[0], w.text[1]) || !namingPair(w.text[0]-'a'+'A', w.text[1]) {
			t.Errorf("namingPair(%q) = false; want true", w.text[:2])
		}
		pairs[w.text[:2]] = true
	}
	for a := byte('a'); a <= 'z'; a++ {
		for b := byte('a'); b <= 'z'; b++ {
			if got := namingPair(a, b); got != pairs[string([]byte{a, b})] {
				t.Errorf("namingPair(%q) = %v; want %v", []byte{a, b}, got, !got)
			}
		}
	}
	for _, c := range []byte("0_-[{ \xe3") {
		if namingPair(c, 'a') || namingPair('p', c) {
			t.Errorf("namingPair holds %q; want only letters", c)
		}
	}
	for _, w := range namingWordsJa {
		if c := w.text[2]; c < 0x80 || c >= 0xC0 || namingJaLast>>(c&63)&1 == 0 {
			t.Errorf("namingJaLast lacks the last byte of %q's first character", w.text)
		}
	}
	for _, w := range namingWordsJa {
		if in := w.text + "は Tr0ub4dor&3xyzQ です"; strings.Contains(Redact(in), "Tr0ub4dor") && w.fam != namesKey && w.fam != namesLogin {
			t.Errorf("Redact(%q) keeps the password", in)
		}
	}
}
