// Package collibra is a small REST client.
package collibra

import (
	"encoding/json"
	"fmt"
	"net/http"
)

const defaultLimit = 100

// Client calls one Collibra instance.
type Client struct {
	BaseURL string
	HTTP    *http.Client
}

// Asset is one row of a findAssets answer.
type Asset struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Finder finds assets.
type Finder interface {
	FindAssets(name string) ([]Asset, error)
}

// NewClient returns a client with the default HTTP client.
func NewClient(base string) *Client {
	return &Client{BaseURL: base, HTTP: http.DefaultClient}
}

// FindAssets returns the assets called name.
func (c *Client) FindAssets(name string) ([]Asset, error) {
	url := fmt.Sprintf("%s/rest/2.0/assets?name=%s&limit=%d", c.BaseURL, name, defaultLimit)
	response, err := c.HTTP.Get(url)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	var page struct {
		Results []Asset `json:"results"`
	}
	err = json.NewDecoder(response.Body).Decode(&page)
	return page.Results, err
}

func (a Asset) String() string { return a.Name }
