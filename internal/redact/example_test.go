package redact_test

import (
	"fmt"

	"github.com/baton-cli/baton/internal/redact"
)

func ExampleRedact() {
	fmt.Println(redact.Redact(`curl -H "Authorization: Bearer 8f14e45fceea167a5a36dedd4bea2543" https://api.example.com`))
	fmt.Println(redact.Redact("DB_PASSWORD=hunter2 ./migrate --dsn postgres://app:s3cret@db:5432/app"))
	fmt.Println(redact.Redact("moved to <private>12 Example Street</private>the new office"))
	// Output:
	// curl -H "Authorization: Bearer [REDACTED:bearer]" https://api.example.com
	// DB_PASSWORD=[REDACTED:assignment] ./migrate --dsn postgres://app:[REDACTED:url-password]@db:5432/app
	// moved to the new office
}
