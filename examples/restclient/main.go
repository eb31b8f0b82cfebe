// Command restclient lists the accounts of an application through a
// running unicald, walking every page, as a program in any language would.
//
//	UNICAL_URL=http://127.0.0.1:8080 UNICAL_API_KEY=uk_... go run ./examples/restclient
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"time"
)

type account struct {
	ID           string `json:"id"`
	Email        string `json:"email"`
	ProviderType string `json:"providerType"`
	Status       string `json:"status"`
}

type page struct {
	Data          []account `json:"data"`
	NextPageToken *string   `json:"nextPageToken"`
}

type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Field   string `json:"field"`
	} `json:"error"`
}

func main() {
	base, key := os.Getenv("UNICAL_URL"), os.Getenv("UNICAL_API_KEY")
	if base == "" || key == "" {
		log.Fatal("set UNICAL_URL and UNICAL_API_KEY")
	}
	client := &http.Client{Timeout: 30 * time.Second}
	token := ""
	for {
		q := url.Values{"limit": {"100"}}
		if token != "" {
			q.Set("pageToken", token)
		}
		req, err := http.NewRequest("GET", base+"/v1/endUserAccounts?"+q.Encode(), nil)
		if err != nil {
			log.Fatal(err)
		}
		req.Header.Set("x-api-key", key)
		resp, err := client.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			var e apiError
			json.NewDecoder(resp.Body).Decode(&e)
			resp.Body.Close()
			log.Fatalf("%d %s: %s (field %q)", resp.StatusCode, e.Error.Code, e.Error.Message, e.Error.Field)
		}
		var p page
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if err != nil {
			log.Fatal(err)
		}
		for _, a := range p.Data {
			fmt.Printf("%s\t%s\t%s\t%s\n", a.ID, a.ProviderType, a.Status, a.Email)
		}
		if p.NextPageToken == nil {
			return
		}
		token = *p.NextPageToken
	}
}
