package redact

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
)

const (
	alnum      = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	digits     = "0123456789"
	b64url     = alnum + "-_"
	b64std     = alnum + "+/"
)

// fakes holds secrets of real shape built from a fixed seed. None of them is
// a real credential.
type fakes struct {
	anthropic, openAILegacy, openAIProject    string
	ghp, gho, ghs, ghu, ghr, githubPAT        string
	akia, asia, slackBot, slackUser, slackApp string
	google, jwt, pemRSA, pemOpenSSH           string
	bearerHex, bearerB64, basic               string
}

func newFakes() fakes {
	g := rand.New(rand.NewPCG(1, 2))
	rnd := func(alphabet string, n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(alphabet[g.IntN(len(alphabet))])
		}
		return b.String()
	}
	pem := func(label string) string {
		var b strings.Builder
		b.WriteString("-----BEGIN " + label + "-----\n")
		for range 6 {
			b.WriteString(rnd(b64std, 64) + "\n")
		}
		b.WriteString(rnd(b64std, 20) + "==\n-----END " + label + "-----")
		return b.String()
	}
	enc := base64.RawURLEncoding.EncodeToString
	return fakes{
		anthropic:     "sk-ant-api03-" + rnd(b64url, 93) + "AA",
		openAILegacy:  "sk-" + rnd(alnum, 20) + "T3BlbkFJ" + rnd(alnum, 20),
		openAIProject: "sk-proj-" + rnd(b64url, 156),
		ghp:           "ghp_" + rnd(alnum, 36),
		gho:           "gho_" + rnd(alnum, 36),
		ghs:           "ghs_" + rnd(alnum, 36),
		ghu:           "ghu_" + rnd(alnum, 36),
		ghr:           "ghr_" + rnd(alnum, 36),
		githubPAT:     "github_pat_11" + rnd(upperAlnum, 20) + "_" + rnd(alnum, 59),
		akia:          "AKIA" + rnd(upperAlnum, 16),
		asia:          "ASIA" + rnd(upperAlnum, 16),
		slackBot:      "xoxb-" + rnd(digits, 12) + "-" + rnd(digits, 13) + "-" + rnd(alnum, 24),
		slackUser:     "xoxp-" + rnd(digits, 12) + "-" + rnd(digits, 12) + "-" + rnd(digits, 13) + "-" + rnd("0123456789abcdef", 32),
		slackApp:      "xapp-1-A" + rnd(upperAlnum, 10) + "-" + rnd(digits, 13) + "-" + rnd("0123456789abcdef", 64),
		google:        "AIza" + rnd(b64url, 35),
		jwt: enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
			enc([]byte(`{"sub":"1234567890","name":"Test User","iat":1516239022}`)) + "." +
			rnd(b64url, 43),
		pemRSA:     pem("RSA PRIVATE KEY"),
		pemOpenSSH: pem("OPENSSH PRIVATE KEY"),
		bearerHex:  rnd("0123456789abcdef", 40),
		bearerB64:  rnd(b64url, 40),
		basic:      base64.StdEncoding.EncodeToString([]byte("admin:" + rnd(alnum, 12))),
	}
}

// tokens lists the fakes that are recognised on their own, with their kinds.
func (f fakes) tokens() []struct{ tok, kind string } {
	return []struct{ tok, kind string }{
		{f.anthropic, kindAnthropic},
		{f.openAILegacy, kindOpenAI},
		{f.openAIProject, kindOpenAI},
		{f.ghp, kindGitHub},
		{f.gho, kindGitHub},
		{f.ghs, kindGitHub},
		{f.ghu, kindGitHub},
		{f.ghr, kindGitHub},
		{f.githubPAT, kindGitHub},
		{f.akia, kindAWS},
		{f.asia, kindAWS},
		{f.slackBot, kindSlack},
		{f.slackUser, kindSlack},
		{f.slackApp, kindSlack},
		{f.google, kindGoogle},
		{f.jwt, kindJWT},
		{f.pemRSA, kindPrivateKey},
		{f.pemOpenSSH, kindPrivateKey},
	}
}

func red(kind string) string { return "[REDACTED:" + kind + "]" }
